import Foundation
import PartyCore
import PartyStore
import Providers
import Synchronization
import ClientNetwork

/// The party rules applied to the database: one `Mutex<PartyState>` owns all mutable state; every operation
/// runs under it once (no recursion), and the events it caused are published after the lock is released,
/// so fan-out to thousands of streams never holds up the SQL of every other party. Provider calls (which can
/// take seconds) happen outside the lock too.
public final class PartyService: Sendable {
    private let state: Mutex<PartyState>
    public let clock: any PartyClock
    public let providers: ProviderRegistry
    public let hub: EventHub
    public let remoteCalls = RemoteCallGate()
    public let trackLookups = TrackLookups()
    /// One add names at most this many uris (each may cost an upstream call); R11
    /// lets a device add no more in a minute anyway.
    public static let maxUrisPerAdd = GuestLimits.addsPerDevice
    /// Set once the listening port is known (port 0 picks one).
    private let joinBase = Mutex("")
    private static let remoteControl = DispatchQueue(label: "musicvoting.remote-playback")
    /// Events reach the hub in commit order, though after the state lock (`PublishOrder`).
    private let publishOrder = PublishOrder()
    /// Set by `beginDrain`.
    private let draining = Atomic(false)
    /// Likes and adds commit in groups (`write`).
    let commits = GroupCommit<BatchedWrite>()

    /// Rung after each commit that logged events, when other instances share the store.
    private let doorbell: Doorbell?
    /// Several instances: likes are counted in the shared database before the state lock (one round trip
    /// each, which would otherwise hold up every other request of this instance).
    let sharedLikeLimits: GuestLimits?

    public init(store: sending any PartyStoring, clock: any PartyClock, random: sending any RandomNumberGenerator, providers: ProviderRegistry,
         hub: EventHub, doorbell: Doorbell? = nil, sharedGuards: (any SharedGuards)? = nil, presence: ClusterPresence? = nil) {
        self.doorbell = doorbell
        sharedLikeLimits = sharedGuards.map { GuestLimits(shared: $0) }
        self.clock = clock
        self.providers = providers
        self.hub = hub
        state = Mutex(PartyState(store: store, clock: clock, random: random, guards: Guards(shared: sharedGuards),
                                 cluster: presence, playerStreams: { [hub] partyId, address in hub.playerStreamCount(partyId: partyId, address: address) }))
        hub.whenStreamsChange { [weak self] partyId, address, isMonitor in
            guard let self, !self.draining.load(ordering: .relaxed) else { return }
            self.withState { state in
                guard isMonitor || state.isWebPlayer(partyId: partyId, address: address) else { return }
                state.monitorStreamsChanged(partyId: partyId)
            }
        }
    }

    /// The type of the random source PINs, party ids and tokens are drawn from: R2 wants a cryptographic one, and a
    /// test holds the app to injecting it.
    public var randomSourceType: any RandomNumberGenerator.Type { withState { type(of: $0.random.base) } }

    /// Runs `body` under the lock, then performs the effects it recorded (also when it threw: what it
    /// recorded outside a rolled-back transaction did happen, a counted wrong PIN for one).
    @discardableResult
    func withState<T: Sendable>(_ body: (inout sending PartyState) throws -> sending T) rethrows -> T {
        var effects = PartyState.Effects()
        var ticket: UInt64?
        defer { perform(effects, ticket: ticket) }
        return try state.withLock { state in
            state.readCache.beginHold()
            defer {
                effects = state.takeEffects()
                if !effects.events.isEmpty { ticket = publishOrder.ticket() }
            }
            return try body(&state)
        }
    }

    private func perform(_ effects: PartyState.Effects, ticket: UInt64?) {
        if let ticket {
            publishOrder.inTurn(ticket) { for event in effects.events { hub.publish(event) } }
            if let doorbell {
                for event in effects.events { if let sequence = event.sequence { doorbell.ring(partyId: event.partyId, sequence: sequence) } }
            }
        }
        for partyId in effects.closedMonitorStreams { hub.closeMonitorStreams(partyId: partyId) }
        for partyId in Set(effects.playersToDrive) { driveRemotePlayer(partyId: partyId) }
    }

    public var now: Date { clock.now() }

    // MARK: Parties and access

    public func activeParty(id: String) throws -> Party { try withState { try $0.activeParty(id: id) } }

    /// R24/R29: the active party (404) whose host PIN — or, with `allowMonitor`, the monitor's token (R21's
    /// "M") — the credential carries (401, then the throttle, then 403).
    @discardableResult
    public func authorize(_ credential: Credential, partyId: String, allowMonitor: Bool = false) throws -> (Party, Caller) {
        try withState { try $0.authorize(credential, partyId: partyId, allowMonitor: allowMonitor) }
    }

    public func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        try withState { try $0.checkSecret(token, party: party, clientAddress: clientAddress, allowMonitor: allowMonitor) }
    }

    /// R25: the party as its host sees it (with the host page's token), or nil when the credential carries neither
    /// the host PIN nor the host token. A token that is neither counts like any wrong PIN.
    public func hostView(_ credential: Credential, party: Party) throws -> Party? {
        guard let token = credential.token, !token.isEmpty else { return nil }
        return try withState { state in
            guard try state.checkSecret(token, party: party, clientAddress: credential.clientAddress, allowMonitor: false) == .host else { return nil }
            var party = party
            try state.ensureHostToken(&party)
            return party
        }
    }

    /// R24a: a new host PIN and host token for the party (the host's own request).
    public func rotateHostPin(of party: Party, clientAddress: String) throws -> Party {
        try withState { try $0.rotateHostPin(of: party, clientAddress: clientAddress) }
    }

    /// R24a: a one-time link of the server's console, redeemed for a new host PIN and host token.
    public func redeemHostRecovery(token: String, partyId: String, clientAddress: String) throws -> Party {
        try withState { try $0.redeemHostRecovery(token: token, partyId: partyId, clientAddress: clientAddress) }
    }

    public func joinParty(guestPin: String, clientAddress: String, deviceId: String? = nil) throws -> Party {
        try withState { try $0.joinParty(guestPin: guestPin, clientAddress: clientAddress, deviceId: deviceId) }
    }

    public func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try withState { try $0.hostJoin(hostPin: hostPin, clientAddress: clientAddress) }
    }

    public func createParty(provider name: String?, settings: PartySettings = .apiDefault, clientAddress: String = "local") throws -> Party {
        guard let name, !name.isEmpty else { throw PartyError.missingProvider }
        guard providers.provider(named: name) != nil else { throw PartyError.invalidProvider(offered: providers.names) }
        return try withState { try $0.createParty(provider: name, settings: settings, clientAddress: clientAddress) }
    }

    /// R9b, R17a: the host changes the party's settings; a change reaches every page as `queue-updated` (reason `settings`).
    public func updateSettings(_ settings: PartySettings, party: Party) throws {
        try withState { state in
            try state.transaction { state in
                try state.store.save(settings: settings, partyId: party.id)
                // The order (R9b) or the veto's buttons and threshold (R17a) change on every page.
                if settings != party.settings { state.publish(.queueUpdated(.settings), partyId: party.id) }
            }
        }
    }

    public var maxActiveParties: Int {
        get { withState { $0.guards.maxActiveParties } }
        set { withState { $0.guards.maxActiveParties = newValue } }
    }

    /// The ration of new guests per network and minute (`GuestLimits`); 0: none.
    public func setNewGuestsPerNetwork(_ limit: Int) {
        withState { $0.guards.guestLimits = GuestLimits(shared: $0.guards.shared, newGuestsPerNetwork: limit) }
    }

    /// The party's provider, bound to the party (Spotify acts with the party's own login).
    public func provider(for party: Party) throws -> any MusicProvider {
        guard let provider = providers.provider(named: party.provider) else { throw ProviderError.notConfigured }
        return provider.bound(to: party.id)
    }

    /// R4: `<public base>/join/<guestPin>`.
    public func joinURL(for party: Party) -> String { publicBase + "/join/" + party.guestPin }

    /// The base URL phones and TVs reach this server under.
    public var publicBase: String { joinBase.withLock { $0 } }

    public func setJoinBase(_ url: String) { joinBase.withLock { $0 = url } }

    public func end(_ party: Party) throws { try withState { try $0.end(party) } }

    /// R6: ends overdue parties and purges long-ended ones; run periodically.
    public func expireParties() throws { try withState { try $0.expireParties() } }

    public func setDefaultPlaylist(_ playlistId: String?, party: Party) throws {
        try withState { try $0.store.setDefaultPlaylist(playlistId, partyId: party.id) }
    }

    public func providerTokens(of party: Party) throws -> ProviderTokens? { try withState { try $0.store.tokens(partyId: party.id) } }

    public func admitRemoteSearch(party: Party, clientAddress: String, count: Int = 1) throws {
        try withState { try $0.admitRemoteSearch(party: party, clientAddress: clientAddress, count: count) }
    }

    public func admitProviderLogin(party: Party, clientAddress: String, byHost: Bool = false) throws {
        try withState { try $0.admitProviderLogin(party: party, clientAddress: clientAddress, byHost: byHost) }
    }

    /// Folds the write-ahead log into the database file (shutdown).
    public func checkpoint() throws { try withState { try $0.store.checkpoint() } }

    // MARK: Queue

    public func queue(of party: Party) throws -> Queue { try withState { try $0.queue(of: party) } }

    /// The queue as `render` turns it into bytes for `deviceId` (R18's `hasVoted`), rendered once per write
    /// version: reads serve the bytes, and the rendering itself runs outside the lock. `render` also gets the
    /// current song's position now (R18a's `startsInMs`); while a song plays the times move, so a rendering is
    /// kept for the second it was made in. The order (R9/R9b) is decided once per write version for every device.
    public func renderedQueue(of party: Party, deviceId: String?, render: (QueueRendering) -> [UInt8]) throws -> [UInt8] {
        let (cached, rendering, key, version) = try withState { state in
            let (queue, ordered) = try state.orderedQueue(of: party)
            let playback = try state.playback(of: party)
            let moving = state.playbackState(playback, partyId: party.id).0 == .playing
            let now = state.now
            // R17a: the threshold moves as guests come and go, without a write: it is part of what a rendering answers.
            let active = try state.activeGuests(party: party)
            let key = party.id + "|" + (deviceId ?? "") + (moving ? "|" + String(Int(now.timeIntervalSince1970)) : "")
                + (active.map { "|veto" + String($0) } ?? "")
            let cached = state.readCache.renderings[key]
            let liked = cached == nil ? try deviceId.map { try state.entriesLiked(by: $0, party: party) } : nil
            let veto = try active.map { active in
                VetoView(share: party.settings.vetoShare, activeGuests: active,
                         vetoed: cached == nil ? try deviceId.map { try state.entriesVetoed(by: $0, party: party) } : nil)
            }
            let rendering = QueueRendering(queue: queue, ordered: ordered, liked: liked, currentPositionMs: playback.positionMs(at: now), veto: veto)
            let version = (state.readCache.alignedVersion, state.readCache.partyVersions[party.id])
            return (cached, rendering, key, version)
        }
        if let cached { return cached }
        let bytes = render(rendering)
        withState { state in
            // Kept only for the reads it was made from: no write here since, nor (shared store) a newer party version.
            if state.store.writeVersion == version.0, state.readCache.alignedVersion == version.0,
               state.readCache.partyVersions[party.id] == version.1 {
                state.readCache.remember(rendering: bytes, key: key)
            }
        }
        return bytes
    }

    /// R10–R13, R16: adds search results by uri, all or none. A remote provider is asked only for uris it did not
    /// answer recently, and those look-ups are admitted like searches before the first call. Without a device id
    /// (the original web frontend) the songs are nobody's (`QueueEntry.isAnonymous`).
    public func add(uris: [String], deviceId: String?, clientAddress: String = "local", party: Party) throws {
        guard !uris.isEmpty else { throw PartyError.noTracks }
        guard uris.count <= Self.maxUrisPerAdd else { throw PartyError.tooManyUris(limit: Self.maxUrisPerAdd) }
        // R30: a banned guest costs no provider look-up.
        if let deviceId { try withState { try $0.refuseIfBanned(deviceId: deviceId, party: party) } }
        for uri in uris where uri.isEmpty || uri.utf8.count > 256 || uri.contains("/") { throw PartyError.invalidUri }
        let provider = try provider(for: party)
        // R13: only uris the provider resolves; looked up before taking the lock (providers may be remote).
        var known: [String: Track?] = [:]
        if provider.isRemote {
            for uri in uris { if let answer = trackLookups.answer(provider: provider.name, uri: uri, at: now) { known[uri] = answer } }
            let unknown = Set(uris).subtracting(known.keys).count
            if unknown > 0 { try admitRemoteSearch(party: party, clientAddress: clientAddress, count: unknown) }
        }
        var tracks: [Track] = []
        for uri in uris {
            let track: Track?
            if let answer = known[uri] {
                track = answer
            } else {
                track = try provider.track(uri: uri)
                if provider.isRemote { trackLookups.remember(track, provider: provider.name, uri: uri, at: now) }
                known[uri] = track
            }
            guard let track else { throw PartyError.trackNotFound }
            tracks.append(track)
        }
        let startsPlayback = try write(partyId: party.id) { [tracks] in try $0.add(tracks, deviceId: deviceId, clientAddress: clientAddress, party: party) }
        EngineMetrics.adds.add(tracks.count)
        if startsPlayback { _ = try startAndRefill(party) }
    }

    public func vote(uri: String, deviceId: String, wanted: Bool? = nil, clientAddress: String = "local", party: Party) throws -> (liked: Bool, likeCount: Int) {
        try sharedLikeLimits?.admitSharedLike(device: deviceId, party: party.id, at: now)
        let result = try write(partyId: party.id) { try $0.vote(uri: uri, deviceId: deviceId, wanted: wanted, clientAddress: clientAddress, party: party) }
        if result.liked { EngineMetrics.likes.add() }
        return result
    }

    /// R17 without holding the caller's thread (it returns at once): `completion` gets the answer once the like's
    /// group commit is done. Alone, the party is looked up in the batch (a like storm's request threads
    /// waited for the state lock a committing batch held, only to find the party); with several instances before the
    /// shared count, on a worker thread (both are database reads), so that no count is kept for a party that is none.
    public func vote(uri: String, deviceId: String, wanted: Bool? = nil, clientAddress: String, partyId: String,
                     completion answer: @escaping @Sendable (Result<(liked: Bool, likeCount: Int), any Error>) -> Void) {
        let completion: @Sendable (Result<(liked: Bool, likeCount: Int), any Error>) -> Void = { result in
            if case .success(let vote) = result, vote.liked { EngineMetrics.likes.add() }
            answer(result)
        }
        let like: @Sendable () -> Void = { [self] in
            write(partyId: partyId, { state in
                try state.vote(uri: uri, deviceId: deviceId, wanted: wanted, clientAddress: clientAddress,
                               party: state.activeParty(id: partyId, endsIfDue: false))
            }, completion: completion)
        }
        guard let sharedLikeLimits else { return like() }
        DispatchQueue.global().async { [self] in
            do {
                let party = try activeParty(id: partyId)
                try sharedLikeLimits.admitSharedLike(device: deviceId, party: party.id, at: now)
            } catch {
                return completion(.failure(error))
            }
            like()
        }
    }

    /// Host removal; removing the playing entry moves on to the next one.
    public func remove(uri: String, party: Party) throws {
        if try withState({ try $0.remove(uri: uri, party: party) }) { _ = try advance(party, request: .host) }
    }

    public func blacklist(of party: Party) throws -> Blacklist { try withState { try $0.store.blacklist(partyId: party.id) } }

    public func addBlacklistWord(_ word: String, party: Party) throws { try withState { try $0.addBlacklistWord(word, party: party) } }

    public func removeBlacklistWord(_ word: String, party: Party) throws { try withState { try $0.removeBlacklistWord(word, party: party) } }

    public func localFileIsServed(trackId: String, audio: Bool) -> Bool {
        do { return try withState { try $0.localFileIsServed(trackId: trackId, audio: audio) } } catch {
            Log.error("local file check: \(error)")
            return false
        }
    }

    // MARK: Playback

    public func deviceActive(_ party: Party) -> Bool { withState { $0.deviceActive(partyId: party.id) } }

    /// Whether a TV holds the party's monitor token (paired, connected or not).
    public func tvPaired(_ party: Party) throws -> Bool { try withState { try $0.store.monitorToken(partyId: party.id) != nil } }

    /// R20: plays the first entry; refills when nothing waits behind it (R15).
    public func start(_ party: Party) throws -> PlayOutcome {
        try withState { try $0.requireDevice(party) }
        // ▶ on an empty party starts the refill (R15's source) instead of doing nothing; when there is
        // none, the answer stays `empty` and a `playback-error` has said why.
        if try withState({ try $0.queue(of: party).entries.isEmpty }) { try refillIfDry(party) }
        return try startAndRefill(party)
    }

    public func startAndRefill(_ party: Party) throws -> PlayOutcome {
        let outcome = try withState { try $0.start(partyId: party.id) }
        if case .playing = outcome { try refillIfDry(party) }
        return outcome
    }

    /// R14/R20: deletes the current entry and plays the next, as `AdvanceRequest` decides.
    public func next(_ party: Party, request: AdvanceRequest) throws -> PlayOutcome {
        try withState { try $0.requireDevice(party) }
        return try advance(party, request: request)
    }

    /// Fetches refill candidates first when the advance will leave nothing waiting (providers may be remote,
    /// so not under the lock), then advances.
    public func advance(_ party: Party, request: AdvanceRequest) throws -> PlayOutcome {
        let refill = try withState { try $0.queue(of: party).waiting.count <= 1 } ? refillTracks(for: party) : []
        return try withState { try $0.advance(partyId: party.id, refill: refill, request: request) }
    }

    public func play(uri: String, party: Party) throws -> QueueEntry { try withState { try $0.play(uri: uri, party: party) } }

    public func pause(_ party: Party) throws -> Playback { try withState { try $0.pause(party) } }

    public func resume(_ party: Party) throws -> Playback { try withState { try $0.resume(party) } }

    public func playback(of party: Party) throws -> Playback { try withState { try $0.playback(of: party) } }

    /// At start-up, or when this instance takes the upkeep over: repairs dangling playback; `listen` (one
    /// instance alone) also stalls every playing party as `no-monitor` until its TV, which must reconnect, reports.
    /// Several instances: the TVs stay connected to the others, and the owner of each party's timer shard watches its
    /// player from every instance's records (`watchSharedPlayers`).
    public func repairDanglingPlayback(listen: Bool = true) throws {
        try withState { state in
            try state.repairDanglingPlayback()
            if listen { try state.listenToActiveParties() }
        }
    }

    /// Several instances: whether this one runs the party upkeep now (nil: it is alone, and always does).
    public var runsUpkeep: Bool? {
        get { upkeepOwner.withLock { $0 } }
        set { upkeepOwner.withLock { $0 = newValue } }
    }
    private let upkeepOwner = Mutex<Bool?>(nil)

    /// R15 after a start, and `prepare-next`: refills when nothing is waiting.
    public func refillIfDry(_ party: Party) throws {
        guard try withState({ try $0.queue(of: party).waiting.isEmpty }) else { return }
        let tracks = refillTracks(for: party)
        try withState { state in
            try state.transaction { state in
                // Two instances refilling one party at once take turns; the second finds it full.
                if state.store.isShared { try state.store.lockParty(id: party.id) }
                var queue = try state.queue(of: party)
                guard queue.waiting.isEmpty else { return }
                try state.insertRefill(tracks, into: &queue, partyId: party.id)
            }
        }
    }

    /// R15 source: the default playlist if set (and not empty), else the provider's charts. A provider that
    /// fails is reported as `playback-error`, so a queue that runs dry is never a silent mystery.
    public func refillTracks(for party: Party) -> [Track] {
        guard let provider = try? provider(for: party) else { return [] }
        let stored = withState { try? $0.store.party(id: party.id) }
        if let playlistId = stored?.defaultPlaylistId ?? party.defaultPlaylistId,
           let tracks = try? provider.playlistTracks(id: playlistId), !tracks.isEmpty {
            return tracks
        }
        do {
            return try provider.charts()
        } catch {
            let reason = error.userMessage
            hub.publish(ServerEvent(kind: .playbackError(message: "Kein Nachschub für die Warteschlange: \(reason)", code: "refill_failed"), partyId: party.id,
                                    at: now))
            return []
        }
    }

    // MARK: Monitor

    /// TV pairing by a code the TV shows and the host's phone claims (see `TVPairings`).
    public func openTVPairing(clientAddress: String) throws -> TVPairings.Pairing {
        try withState { try $0.openTVPairing(clientAddress: clientAddress) }
    }

    public func claimTVPairing(code: String, party: Party, clientAddress: String, replace: Bool) throws {
        try withState { try $0.claimTVPairing(code: code, party: party, clientAddress: clientAddress, replace: replace) }
    }

    public func tvPairingStatus(secret: String) throws -> TVPairings.Status { try withState { try $0.tvPairingStatus(secret: secret) } }


    public func registerMonitor(deviceId: String, caller: Caller, party: Party, clientAddress: String,
                                asWebPlayer: Bool = false, replace: Bool = true) throws -> String {
        try withState {
            try $0.registerMonitor(deviceId: deviceId, caller: caller, party: party, clientAddress: clientAddress, asWebPlayer: asWebPlayer,
                                   replace: replace)
        }
    }

    public func reportProgress(_ report: ProgressReport, party: Party) {
        withState { $0.reportProgress(report, party: party) }
    }

    /// `DELETE …/device`: the monitor leaves (its page is hidden or closed); its streams close, so
    /// `deviceActive` turns false and a playing song stalls as `no-monitor` at once.
    public func monitorLeft(_ party: Party) {
        hub.closeMonitorStreams(partyId: party.id)
        withState { $0.monitorLeft(partyId: party.id) }
    }

    /// R20a: the playback state clients show, with the stall's reason.
    public func playbackState(of party: Party) throws -> (Playback, PlaybackState, StallReason?) {
        try withState { state in
            let playback = try state.playback(of: party)
            let (shown, reason) = state.playbackState(playback, partyId: party.id)
            return (playback, shown, reason)
        }
    }

    /// Opens an SSE stream; a monitor's stream keeps `deviceActive` true while it is open (the hub counts it).
    /// `caller` is what the stream proved (the host's streams may use the party's reserved slots too). With several instances:
    /// the stream starts with the party's log after `lastEventId` (or `resync`), read under the state lock with
    /// the stream joining the hub, so no event commits in between; one the hub is still to send is not sent twice.
    public func openEventStream<Sink: EventSink>(party: Party, clientAddress: String, caller: Caller?, lastEventId: Int64?,
                                                 audience: Audience = Audience(source: "web"),
                                                 makeSink: ([UInt8]) -> Sink) throws -> Sink {
        let hub = self.hub
        let stream = try withState { state in
            while true {
                let (initial, lastSequence) = try state.streamStart(partyId: party.id, lastEventId: lastEventId, audience: audience)
                if let stream = try hub.registerIfCaughtUp(partyId: party.id, address: clientAddress, initial: initial, resumedAt: lastSequence,
                                                           isMonitor: caller == .monitor, standing: caller == nil ? .guest : .privileged,
                                                           audience: audience, unlessSentPast: lastSequence, makeSink: makeSink) {
                    return stream
                }
            }
        }
        hub.streamsChanged(party.id, clientAddress, caller == .monitor)
        return stream
    }

    /// A client that reopens its event stream in a tight loop (the original iOS listeners retry at once after a
    /// refusal or an ended party) is answered after this pause, not refused: past 5 such opens in 10 s from one
    /// address, 2 s. Streams that open normally (a TV reloading) never count.
    public func streamOpenDelay(clientAddress: String) -> TimeInterval {
        withState { $0.guards.streamOpens.retryAfter(key: AddressPrefix.host(of: clientAddress), at: $0.now) == nil ? 0 : 2 }
    }

    /// A stream open that was refused or found the party ended: it counts toward `streamOpenDelay`.
    public func noteFutileStreamOpen(clientAddress: String) {
        withState { $0.guards.streamOpens.record(key: AddressPrefix.host(of: clientAddress), at: $0.now) }
    }

    /// SPEC: the iOS app waits for its login on a stream without `partyId`; it carries only the
    /// `login-success` events of its installation (and keepalives). Such a stream has no party and so no
    /// log: its events carry no `id:` and a `Last-Event-ID` replays nothing (the app asks the login status when
    /// it comes back; the party's own stream replays the login, scoped to the installation).
    public func openInstallationStream<Sink: EventSink>(installationId: String, clientAddress: String,
                                                        makeSink: ([UInt8]) -> Sink) throws -> Sink {
        try hub.subscribe(partyId: Self.installationChannel(installationId), address: clientAddress, standing: .installation,
                          audience: Audience(source: "ios", installationId: installationId), makeSink: makeSink)
    }

    /// The hub's key for an installation's stream (party ids are hex, so they never collide with it).
    static func installationChannel(_ installationId: String) -> String { "installation:" + installationId }

    /// SPEC: the stream of a party that ended (and is not yet purged) says `party-ended` once and stays open
    /// with keepalives for 10 minutes; an id that never was a party is `.partyNotFound`.
    public func openEndedPartyStream<Sink: EventSink>(partyId: String, clientAddress: String,
                                                      makeSink: ([UInt8]) -> Sink) throws -> Sink {
        let lastSequence = try withState { state -> Int64?? in
            guard let party = try state.store.party(id: partyId), !party.isActive else { return nil }
            return .some(try state.store.lastEventSequence(partyId: partyId))
        }
        guard let lastSequence else { throw PartyError.partyNotFound }
        return try hub.subscribeToEndedParty(partyId: partyId, address: clientAddress, lastSequence: lastSequence, makeSink: makeSink)
    }

    /// Once a second: `device-changed` for every party whose `deviceActive` changed (heartbeats run out), and
    /// R20a's stall detection.
    public func watchPlayback() {
        guard !draining.load(ordering: .relaxed) else { return }
        withState { state in
            state.announceDeviceChanges()
            state.detectStalls()
            state.watchSharedPlayers()
        }
    }

    /// A drain began: the TV streams it ends were told to come back, so their end is not the TV leaving. From now
    /// on this process concludes nothing about players (no `no-monitor` stall, no `device-changed`): the song
    /// stays as it plays, and the process that serves the TV next decides (R20a).
    public func beginDrain() { draining.store(true, ordering: .relaxed) }

    /// Several instances: the timer shards this instance owns now (`TimerShards`); it watches their parties.
    public func ownTimerShards(_ shards: [Int]) {
        ownedShards.withLock { $0 = shards }
        withState { $0.timerShards = shards }
    }

    /// The timer shards this instance owns (`/healthz`); nil when it is alone.
    public var timerShards: [Int]? { ownedShards.withLock { $0 } }
    private let ownedShards = Mutex<[Int]?>(nil)

    /// The monitor's Web Playback SDK device, if one registered.
    public func sdkDevice(of party: Party) -> String? { withState { $0.sdkDevice(partyId: party.id) } }

    /// `PUT …/spotify/deviceId`: the monitor's SDK device; the current track continues there (R22).
    public func registerSDKDevice(_ deviceId: String, party: Party) {
        withState { $0.registerSDKDevice(deviceId, partyId: party.id) }
        driveRemotePlayer(partyId: party.id)
    }

    /// Tells the party's Spotify SDK device what to play, on its own serial queue, never on HTTP threads.
    public func driveRemotePlayer(partyId: String) {
        let providers = self.providers
        guard let command = withState({ $0.remotePlayerCommand(partyId: partyId, providers: providers) }) else { return }
        let hub = self.hub, clock = self.clock
        Self.remoteControl.async { [weak self] in
            do throws(ProviderError) {
                try command.spotify.control(deviceId: command.deviceId, uri: command.uri, positionMs: command.positionMs,
                                            isPlaying: command.isPlaying)
            } catch {
                // Music must never stop silently: the host and the TV are told why, and a song that should play
                // is stalled (R20a: provider-error) instead of counting on in silence.
                let message = error.userMessage
                hub.publish(ServerEvent(kind: .playbackError(message: message, code: error.code), partyId: partyId, at: clock.now()))
                if command.isPlaying { self?.withState { $0.stall(partyId: partyId, reason: .providerError) } }
            }
        }
    }

    /// `login-success`, scoped to the party and logged (a replay keeps its scope); an iOS login says `source: ios`
    /// (+ installationId) so the web monitor does not re-initialise its player.
    public func publishLogin(party: Party, source: String, installationId: String?) {
        let installationId = source == "ios" ? installationId : nil
        let audience = Audience(source: source, installationId: installationId)
        do {
            try withState { state in
                try state.transaction { $0.publish(.loginSuccess(installationId: installationId), partyId: party.id, source: source,
                                                   audience: audience) }
            }
        } catch {
            Log.error("event log: login-success for \(party.id) not sent: \(error)")
        }
        if let installationId {
            // The same event on the installation's own stream (the app may not know the party's id yet); its
            // `partyId` still names the party. Not logged: that stream has no party.
            hub.publish(ServerEvent(kind: .loginSuccess(installationId: installationId), partyId: Self.installationChannel(installationId),
                                    source: source, audience: audience, displayedPartyId: party.id, at: now))
        }
    }
}
