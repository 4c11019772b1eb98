import Foundation
import PartyCore

/// Several instances: the party's player may be connected to any instance, so each writes what it knows of
/// it (`PresenceRecords`), any instance answers `deviceActive` from all of them, and exactly one — the owner of
/// the party's timer shard — runs R20a's stall detection and announces `device-changed`. A database that cannot be
/// asked is logged, and this instance's own bookkeeping answers meanwhile.
struct SharedPlayers: PlayerPresence {
    let records: any PresenceRecords

    /// The cluster's view of the party's player (nil, logged, when the database cannot say).
    private func view(partyId: String, at now: Date) -> PlayerView? {
        do { return PlayerView(try records.records(partyId: partyId, at: now)) } catch {
            Log.error("presence of \(partyId): \(error)")
            return nil
        }
    }

    func deviceActive(partyId: String, state: PartyState) -> Bool {
        view(partyId: partyId, at: state.now)?.isActive(at: state.now) ?? LocalPlayers().deviceActive(partyId: partyId, state: state)
    }

    func hasConnectedTV(partyId: String, state: PartyState) -> Bool {
        guard let view = view(partyId: partyId, at: state.now) else { return LocalPlayers().hasConnectedTV(partyId: partyId, state: state) }
        return view.streams > 0 && view.isActive(at: state.now)
    }

    /// Writes this instance's record of the party's player (after every change of it, and every second while its
    /// streams are open here).
    func share(partyId: String, state: PartyState) { share([partyId], state: state) }

    /// This instance's records of the parties' players, written together.
    private func share(_ partyIds: [String], state: PartyState) {
        guard !partyIds.isEmpty else { return }
        var written: [String: PresenceRecord] = [:]
        for partyId in partyIds {
            let (heartbeat, closed) = state.presence.times(partyId: partyId)
            let listening = state.live[partyId]?.listening
            written[partyId] = PresenceRecord(streams: state.monitorStreams(partyId), lastHeartbeat: heartbeat, lastStreamClosed: closed,
                                              reports: state.live[partyId]?.deviceAddress == nil, heardAt: listening?.heardAt,
                                              positionMs: listening?.positionMs, reportedAt: listening?.reportedAt, updatedAt: state.now)
        }
        do { try records.save(written) } catch { Log.error("presence of \(partyIds.count) parties not shared: \(error)") }
    }

    /// From every instance's records, for the parties named (the owner of the party's timers looks at all of its
    /// parties every second).
    func announceChanges(also partyIds: [String], state: inout PartyState) {
        for partyId in partyIds {
            if let view = view(partyId: partyId, at: state.now) { announce(active: view.isActive(at: state.now), partyId: partyId, state: &state) }
        }
    }

    /// The owner of the party's timers detects its stalls (`watch`).
    func detectStalls(state: inout PartyState) {}

    /// Once a second: refreshes this instance's records while its streams are open; then, for the parties whose
    /// timers it owns, announces `device-changed` and detects stalls from every instance's records.
    func watch(state: inout PartyState) {
        refreshWebPlayers(state: &state)
        // Every party with streams here, in a few statements rather than one each: with hundreds of parties those
        // were a good part of a second under the state lock, every second.
        let sharing = state.live.keys.filter { state.monitorStreams($0) > 0 || state.live[$0]?.presenceToShare == true }
        for partyId in sharing { state.live[partyId]?.presenceToShare = false }
        share(sharing, state: state)
        let shards = state.timerShards ?? Array(0..<records.shardCount)
        guard !shards.isEmpty else { return }
        let found: [String: [PresenceRecord]]
        let watched: [String]
        let parties: [String: Party]
        do {
            found = try records.records(shards: shards, at: state.now)
            watched = try records.partiesToWatch(shards: shards)
            // The watched parties' playback in one read per 64 of them, not a party and a queue read each: with
            // hundreds of parties those were most of a second under the state lock, every second.
            parties = try state.store.parties(ids: watched)
        } catch {
            Log.error("shared presence: \(error)")
            return
        }
        for (partyId, partyRecords) in found { announce(active: PlayerView(partyRecords).isActive(at: state.now), partyId: partyId, state: &state) }
        for partyId in watched {
            guard let party = parties[partyId], party.isActive else { continue }
            detectStall(partyId: partyId, playback: party.playback, view: PlayerView(found[partyId] ?? []), state: &state)
        }
    }

    /// This instance refreshes its record every second while the streams are open (`watch`).
    func streamsChanged(partyId: String, state: inout PartyState) {
        if state.live[partyId] == nil { state.live[partyId] = LiveParty() }
    }

    /// The TV reports to this instance, which did not start the song (another did, or this one before a restart).
    /// What the cluster heard of it stands (R20a): a report that is not audible, sent here, neither restarts the
    /// song's silence nor moves where its audio was last heard. Only a song nobody heard yet starts from the clock.
    func hearsUnknownSong(partyId: String, state: inout PartyState) {
        if let heard = view(partyId: partyId, at: state.now)?.listening {
            state.live[partyId, default: LiveParty()].listening = heard
        } else {
            state.adoptPlayback(partyId: partyId)
        }
    }

    /// The stored playback's (`known`: read just now, the party of a monitor's report): another instance may have
    /// stalled or resumed it.
    func knownStallReason(partyId: String, known: Playback?, state: PartyState) -> StallReason? {
        if let known { return state.stallReason(partyId: partyId, playback: known) }
        guard let (playback, _) = try? state.storedPlayback(partyId: partyId) else { return nil }
        return state.stallReason(partyId: partyId, playback: playback)
    }

    /// Announces the party's `deviceActive` as the cluster sees it when it changed: whichever instance notices first
    /// (the one a TV registered on or left, or the owner of the party's timers within a second) announces it, once.
    private func announce(active: Bool, partyId: String, state: inout PartyState) {
        guard state.live[partyId]?.announcedActive != active else { return }
        do {
            if try records.announce(active: active, partyId: partyId) { state.publish(.deviceChanged(active: active), partyId: partyId) }
            state.live[partyId, default: LiveParty()].announcedActive = active
        } catch {
            Log.error("device of \(partyId) not announced: \(error)")
        }
    }

    /// An instance that did not register the web player learns it from the database when its stream opens here.
    func learnWebPlayer(partyId: String, address: String, state: inout PartyState) -> Bool {
        do {
            guard let registered = try records.webPlayerAddress(partyId: partyId), registered == address else { return false }
            state.live[partyId, default: LiveParty()].deviceAddress = registered
            return true
        } catch {
            Log.error("web player of \(partyId): \(error)")
            return false
        }
    }

    func setWebPlayer(address: String?, partyId: String) {
        do { try records.setWebPlayerAddress(address, partyId: partyId) } catch { Log.error("web player of \(partyId) not shared: \(error)") }
    }

    /// The web players registered on any instance, for the parties live here (another registration replaces one).
    private func refreshWebPlayers(state: inout PartyState) {
        guard !state.live.isEmpty else { return }
        do {
            let registered = try records.webPlayerAddresses()
            for partyId in state.live.keys where state.live[partyId]?.deviceAddress != registered[partyId] {
                state.live[partyId]?.deviceAddress = registered[partyId]
            }
        } catch {
            Log.error("web players: \(error)")
        }
    }

    /// R20a for one party whose timers this instance owns, as `LocalPlayers.detectStalls` does for one instance alone.
    /// `playback`: the party's as stored (a stall reads it again, with its queue).
    private func detectStall(partyId: String, playback: Playback, view: PlayerView, state: inout PartyState) {
        let now = state.now
        guard playback.isPlaying || playback.isStalled else { return }
        // No instance heard the song yet (it started before the records did): its silence counts from now, and its
        // monitor is judged from the next refresh of the records on (R20a): a TV that registered and reported on
        // another instance a moment ago is not in them yet, and judged now, its song would stall as `no-monitor`.
        if view.listening == nil, state.live[partyId]?.listening == nil {
            state.live[partyId, default: LiveParty()].listening = Listening(heardAt: now, positionMs: playback.positionMs(at: now), reportedAt: now)
            return
        }
        guard let heard = view.listening ?? state.live[partyId]?.listening else { return }
        let active = view.isActive(at: now)
        let silent = now.timeIntervalSince(heard.heardAt) > Playback.silenceLimit
        switch state.stallReason(partyId: partyId, playback: playback) {
        case nil:
            if !active {
                state.stall(partyId: partyId, reason: .noMonitor, heard: heard)
            } else if silent {
                state.stall(partyId: partyId, reason: .monitorSilent, heard: heard)
            }
        case .noMonitor?:
            if active, silent { state.stall(partyId: partyId, reason: .monitorSilent, heard: heard) }
        case .monitorSilent?, .autoplayBlocked?, .providerError?:
            if !active { state.stall(partyId: partyId, reason: .noMonitor, heard: heard) }
        }
    }

    /// The Spotify Web Playback SDK device the party's TV registered on any instance.
    func sdkDevice(partyId: String) -> String? {
        do { return try records.sdkDevice(partyId: partyId) } catch {
            Log.error("SDK device of \(partyId): \(error)")
            return nil
        }
    }

    func setSDKDevice(_ deviceId: String, partyId: String) {
        do { try records.setSDKDevice(deviceId, partyId: partyId) } catch { Log.error("SDK device of \(partyId) not shared: \(error)") }
    }

    func isRetiredMonitorToken(_ token: String, partyId: String) -> Bool {
        do { return try records.retiredMonitorTokens(partyId: partyId).contains(token) } catch {
            // A database that cannot say counts the token as a wrong secret (stricter).
            Log.error("retired monitor tokens of \(partyId): \(error)")
            return false
        }
    }

    func retiredMonitorTokens(partyId: String, kept: [String]) throws -> [String] { try records.retiredMonitorTokens(partyId: partyId) }

    func keepRetiredMonitorTokens(_ tokens: [String], partyId: String) throws { try records.setRetiredMonitorTokens(tokens, partyId: partyId) }

    func forget(partyId: String) throws { try records.forget(partyId: partyId) }

    func prune(before cutoff: Date, at now: Date) throws { try records.prune(before: cutoff, at: now) }
}

/// What `PartyState` asks of the party's player, wherever it is known (`players`).
extension PartyState {
    func sharePresence(partyId: String) { players.share(partyId: partyId, state: self) }

    /// Whether a stream from `address` is the party's web player, registered on this instance or, with several, on any.
    mutating func isWebPlayer(partyId: String, address: String) -> Bool {
        if live[partyId]?.deviceAddress == address { return true }
        let players = self.players
        return players.learnWebPlayer(partyId: partyId, address: address, state: &self)
    }

    /// Why the stored playback is stalled (nil: it is not): the reason stored with it (whichever instance stalled it),
    /// else this instance's, else `no-monitor` (a database from before the reason was stored).
    func stallReason(partyId: String, playback: Playback) -> StallReason? {
        playback.isStalled ? (playback.stallReason ?? live[partyId]?.stallReason ?? .noMonitor) : nil
    }

    /// The party's Spotify SDK device: registered here, or on another instance.
    func sdkDevice(partyId: String) -> String? { live[partyId]?.sdkDevice ?? players.sdkDevice(partyId: partyId) }

    mutating func registerSDKDevice(_ deviceId: String, partyId: String) {
        live[partyId, default: LiveParty()].sdkDevice = deviceId
        players.setSDKDevice(deviceId, partyId: partyId)
    }

    /// Whether `token` is one the party's monitor held before it was replaced (on any instance).
    func isRetiredMonitorToken(_ token: String, partyId: String) -> Bool {
        live[partyId]?.retiredMonitorTokens.contains(token) == true || players.isRetiredMonitorToken(token, partyId: partyId)
    }

    /// Remembers the monitor token `old` as retired (the last eight), here and for every instance.
    mutating func retireMonitorToken(_ old: String, partyId: String) throws {
        var tokens = try players.retiredMonitorTokens(partyId: partyId, kept: live[partyId]?.retiredMonitorTokens ?? [])
        tokens = Array(tokens.suffix(7)) + [old]
        live[partyId, default: LiveParty()].retiredMonitorTokens = tokens
        try players.keepRetiredMonitorTokens(tokens, partyId: partyId)
    }
}
