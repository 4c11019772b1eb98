import Foundation
import PartyCore
import PartyStore
import Providers
import Synchronization
import ClientNetwork

extension PartyService {
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
        withState { $0.guards.limits.retryAfter(.streamOpens, key: AddressPrefix.host(of: clientAddress), at: $0.now) == nil ? 0 : 2 }
    }

    /// A stream open that was refused or found the party ended: it counts toward `streamOpenDelay`.
    public func noteFutileStreamOpen(clientAddress: String) {
        withState { $0.guards.limits.record(.streamOpens, key: AddressPrefix.host(of: clientAddress), count: 1, at: $0.now) }
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
            let players = state.players
            players.watch(state: &state)
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
