import Foundation
import PartyCore
import PartyStore

/// Several instances: the party's player may be connected to any instance, so each writes what it knows of
/// it (`ClusterPresence`), any instance answers `deviceActive` from all of them, and exactly one — the owner of
/// the party's timer shard (`TimerShards`) — runs R20a's stall detection and announces `device-changed`.
extension PartyState {
    /// The cluster's view of the party's player, nil when alone (or, logged, when the database cannot say).
    func sharedPlayerView(partyId: String) -> PlayerView? {
        guard let cluster else { return nil }
        do { return PlayerView(try cluster.records(partyId: partyId, at: now)) } catch {
            Log.error("presence of \(partyId): \(error)")
            return nil
        }
    }

    /// Writes this instance's record of the party's player (after every change of it, and every second while its
    /// streams are open here).
    mutating func sharePresence(partyId: String) {
        guard let cluster else { return }
        let (heartbeat, closed) = presence.times(partyId: partyId)
        let listening = live[partyId]?.listening
        let record = PresenceRecord(streams: monitorStreams(partyId), lastHeartbeat: heartbeat, lastStreamClosed: closed,
                                    reports: live[partyId]?.deviceAddress == nil, heardAt: listening?.heardAt,
                                    positionMs: listening?.positionMs, reportedAt: listening?.reportedAt, updatedAt: now)
        do { try cluster.save(record, partyId: partyId) } catch { Log.error("presence of \(partyId) not shared: \(error)") }
    }

    /// Once a second with several instances: refreshes this instance's records while its streams are open; then, for
    /// the parties whose timers it owns, announces `device-changed` and detects stalls from every instance's records.
    mutating func watchSharedPlayers() {
        guard let cluster else { return }
        refreshWebPlayers()
        for partyId in live.keys where monitorStreams(partyId) > 0 { sharePresence(partyId: partyId) }
        let shards = timerShards ?? Array(0..<TimerShards.count)
        guard !shards.isEmpty else { return }
        let records: [String: [PresenceRecord]]
        let watched: [String]
        do {
            records = try cluster.records(shards: shards, at: now)
            watched = try cluster.partiesToWatch(shards: shards)
        } catch {
            Log.error("shared presence: \(error)")
            return
        }
        for (partyId, partyRecords) in records { announceShared(active: PlayerView(partyRecords).isActive(at: now), partyId: partyId) }
        for partyId in watched { detectStall(partyId: partyId, view: PlayerView(records[partyId] ?? [])) }
    }

    /// Announces the party's `deviceActive` as the cluster sees it when it changed: whichever instance notices first
    /// (the one a TV registered on or left, or the owner of the party's timers within a second) announces it, once.
    mutating func announceShared(active: Bool, partyId: String) {
        guard let cluster, live[partyId]?.announcedActive != active else { return }
        do {
            if try cluster.announce(active: active, partyId: partyId) { publish(.deviceChanged(active: active), partyId: partyId) }
            live[partyId, default: LiveParty()].announcedActive = active
        } catch {
            Log.error("device of \(partyId) not announced: \(error)")
        }
    }

    /// Whether a stream from `address` is the party's web player, registered on this instance or, with
    /// several, on any: an instance that did not register it learns it from the database when its stream opens here.
    mutating func isWebPlayer(partyId: String, address: String) -> Bool {
        if live[partyId]?.deviceAddress == address { return true }
        guard let cluster else { return false }
        do {
            guard let shared = try cluster.webPlayerAddress(partyId: partyId), shared == address else { return false }
            live[partyId, default: LiveParty()].deviceAddress = shared
            return true
        } catch {
            Log.error("web player of \(partyId): \(error)")
            return false
        }
    }

    /// The web players registered on any instance, for the parties live here (another registration replaces one).
    private mutating func refreshWebPlayers() {
        guard let cluster, !live.isEmpty else { return }
        do {
            let shared = try cluster.webPlayerAddresses()
            for partyId in live.keys where live[partyId]?.deviceAddress != shared[partyId] { live[partyId]?.deviceAddress = shared[partyId] }
        } catch {
            Log.error("web players: \(error)")
        }
    }

    /// R20a for one party whose timers this instance owns, as `detectStalls` does for one instance alone.
    private mutating func detectStall(partyId: String, view: PlayerView) {
        guard let (playback, _) = try? storedPlayback(partyId: partyId), playback.isPlaying || playback.isStalled else { return }
        // No instance heard the song yet (it started before the records did): its silence counts from now.
        if view.listening == nil, live[partyId]?.listening == nil {
            live[partyId, default: LiveParty()].listening = Listening(heardAt: now, positionMs: playback.positionMs(at: now), reportedAt: now)
        }
        guard let heard = view.listening ?? live[partyId]?.listening else { return }
        let active = view.isActive(at: now)
        let silent = now.timeIntervalSince(heard.heardAt) > Playback.silenceLimit
        switch stallReason(partyId: partyId, playback: playback) {
        case nil:
            if !active { stall(partyId: partyId, reason: .noMonitor, heard: heard) } else if silent { stall(partyId: partyId, reason: .monitorSilent, heard: heard) }
        case .noMonitor?:
            if active, silent { stall(partyId: partyId, reason: .monitorSilent, heard: heard) }
        case .monitorSilent?, .autoplayBlocked?, .providerError?:
            if !active { stall(partyId: partyId, reason: .noMonitor, heard: heard) }
        }
    }

    /// Why the stored playback is stalled (nil: it is not): the reason stored with it (whichever instance stalled it),
    /// else this instance's, else `no-monitor` (a database from before the reason was stored).
    func stallReason(partyId: String, playback: Playback) -> StallReason? {
        playback.isStalled ? (playback.stallReason ?? live[partyId]?.stallReason ?? .noMonitor) : nil
    }

    /// The party's Spotify SDK device: registered here, or (several instances) on any of them.
    func sdkDevice(partyId: String) -> String? {
        if let local = live[partyId]?.sdkDevice { return local }
        guard let cluster else { return nil }
        do { return try cluster.sdkDevice(partyId: partyId) } catch {
            Log.error("SDK device of \(partyId): \(error)")
            return nil
        }
    }

    mutating func registerSDKDevice(_ deviceId: String, partyId: String) {
        live[partyId, default: LiveParty()].sdkDevice = deviceId
        do { try cluster?.setSDKDevice(deviceId, partyId: partyId) } catch { Log.error("SDK device of \(partyId) not shared: \(error)") }
    }

    /// Whether `token` is one the party's monitor held before it was replaced (on any instance).
    func isRetiredMonitorToken(_ token: String, partyId: String) -> Bool {
        if live[partyId]?.retiredMonitorTokens.contains(token) == true { return true }
        guard let cluster else { return false }
        do { return try cluster.retiredMonitorTokens(partyId: partyId).contains(token) } catch {
            // A database that cannot say counts the token as a wrong secret (stricter).
            Log.error("retired monitor tokens of \(partyId): \(error)")
            return false
        }
    }

    /// Remembers the monitor token `old` as retired (the last eight), here and for every instance.
    mutating func retireMonitorToken(_ old: String, partyId: String) throws {
        var tokens = live[partyId]?.retiredMonitorTokens ?? []
        if let cluster { tokens = try cluster.retiredMonitorTokens(partyId: partyId) }
        tokens = Array(tokens.suffix(7)) + [old]
        live[partyId, default: LiveParty()].retiredMonitorTokens = tokens
        try cluster?.setRetiredMonitorTokens(tokens, partyId: partyId)
    }
}
