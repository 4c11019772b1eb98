import Foundation
import PartyCore
import Providers

extension PartyState {
    /// R21/R22: registers the party's monitor. The host PIN pairs a new monitor (new token); the monitor's
    /// own token re-registers it. Playback state is untouched, so a re-registered monitor continues.
    /// A player registered with the host PIN as an SDK device (`asWebPlayer`: the original web player,
    /// which opens its stream without a monitor token) stays the party's device while a stream from its address
    /// is open; any other registration replaces it, and a monitor counts by its monitor streams only.
    /// A new TV registered with the host PIN while another is connected is refused unless `replace`.
    mutating func registerMonitor(deviceId: String, caller: Caller, party: Party, clientAddress: String,
                                  asWebPlayer: Bool = false, replace: Bool = true) throws -> String {
        let token: String
        if caller == .monitor, let existing = try store.monitorToken(partyId: party.id) {
            token = existing
        } else {
            if !replace && hasConnectedTV(partyId: party.id) { throw PartyError.monitorConnected }
            token = self.token()
            try replaceMonitorToken(with: token, partyId: party.id)
        }
        let webPlayer = asWebPlayer && caller == .host ? clientAddress : nil
        live[party.id, default: LiveParty()].deviceAddress = webPlayer
        players.setWebPlayer(address: webPlayer, partyId: party.id)
        presence.heartbeat(partyId: party.id, at: now)
        monitorArrived(partyId: party.id)
        sharePresence(partyId: party.id)
        announceDeviceChanges(also: [party.id])
        republishCurrentTrack(partyId: party.id)
        return token
    }

    /// A TV is connected: its monitor stream is open and it reports (a registration alone is no TV on the wall).
    func hasConnectedTV(partyId: String) -> Bool {
        players.hasConnectedTV(partyId: partyId, state: self)
    }

    /// A new monitor token for the party; the old one is remembered as retired (see `checkSecret`).
    mutating func replaceMonitorToken(with token: String, partyId: String) throws {
        if let old = try store.monitorToken(partyId: partyId) {
            try retireMonitorToken(old, partyId: partyId)
            // The old TV's streams end; it reconnects with its old token, re-registers and is told it was replaced.
            closeMonitorStreams(partyId: partyId)
        }
        try store.setMonitor(token: token, partyId: partyId)
    }

    /// R22: tells every client (the monitor first of all) what plays and where, after a re-register.
    /// Its two events are logged together, though nothing changed.
    mutating func republishCurrentTrack(partyId: String) {
        guard let (playback, queue) = try? storedPlayback(partyId: partyId), let entry = queue.current else { return }
        do {
            try transaction { $0.publishTrackChanged(partyId: partyId, entry: entry, playback: playback) }
        } catch {
            Log.error("event log: track-changed for \(partyId) not sent: \(error)")
        }
    }

    /// R23: relays the monitor's report as a `progress` event and counts as a heartbeat; R20a: whether the
    /// audio is heard decides between playing and stalled.
    /// The report changes what this instance shares of the player (its heartbeat, where the audio was): shared with
    /// the next second's refresh (`PlayerPresence.watch`), not a write per report.
    mutating func reportProgress(_ report: ProgressReport, party: Party) {
        presence.heartbeat(partyId: party.id, at: now)
        defer { live[party.id, default: LiveParty()].presenceToShare = true }
        announceDeviceChanges()
        // An idle TV reports too (its heartbeat); with no song there is no progress to tell anyone.
        guard party.playback.currentEntryId != nil else { return }
        publish(.progress(positionMs: report.positionMs, durationMs: report.durationMs, paused: report.paused), partyId: party.id)
        hearMonitor(positionMs: report.positionMs, paused: report.paused, blocked: report.blocked, error: report.error, partyId: party.id,
                    playback: party.playback)
    }

    /// The monitor said it leaves: its heartbeats so far no longer count (its streams are being closed).
    mutating func monitorLeft(partyId: String) {
        presence.streamsClosed(partyId: partyId, at: now)
        sharePresence(partyId: partyId)
        announceDeviceChanges(also: [partyId])
        detectStalls()
    }

    /// The party's monitor streams opened or closed (the hub counts them).
    mutating func monitorStreamsChanged(partyId: String) {
        if monitorStreams(partyId) == 0 { presence.streamsClosed(partyId: partyId, at: now) } else { monitorArrived(partyId: partyId) }
        let players = self.players
        players.streamsChanged(partyId: partyId, state: &self)
        sharePresence(partyId: partyId)
        announceDeviceChanges(also: [partyId])
        detectStalls()
    }

    /// Publishes `device-changed` for every party whose `deviceActive` changed since last told.
    /// `also` names parties whose monitor streams just opened or closed.
    mutating func announceDeviceChanges(also partyIds: [String] = []) {
        let players = self.players
        players.announceChanges(also: partyIds, state: &self)
    }

    /// Spotify has no queue we could use (SPEC): after every playback change the server tells the SDK device
    /// what to play, by uri and position, or to pause. This reads what to say; the service says it off the lock.
    func remotePlayerCommand(partyId: String, providers: ProviderRegistry) -> RemotePlayerCommand? {
        guard let deviceId = sdkDevice(partyId: partyId), let party = try? store.party(id: partyId),
              let spotify = providers.provider(named: party.provider)?.bound(to: party.id) as? SpotifyProvider else { return nil }
        let current = try? store.queue(partyId: partyId, currentEntryId: party.playback.currentEntryId).current
        return RemotePlayerCommand(spotify: spotify, deviceId: deviceId, uri: current?.track.uri,
                                   positionMs: party.playback.positionMs(at: now), isPlaying: party.playback.isPlaying && current != nil)
    }
}

/// R23/R20a: one progress report of the monitor (`{position, duration, paused}`, ours: `blocked`, `error`).
public struct ProgressReport: Sendable {
    public var positionMs: Int
    public var durationMs: Int
    public var paused: Bool
    /// The browser refused `play()` without a tap.
    public var blocked: Bool
    /// The provider's player failed; the message is shown to the host.
    public var error: String?

    public init(positionMs: Int, durationMs: Int, paused: Bool, blocked: Bool = false, error: String? = nil) {
        self.positionMs = positionMs
        self.durationMs = durationMs
        self.paused = paused
        self.blocked = blocked
        self.error = error
    }
}

/// One instruction for a party's Spotify SDK device.
struct RemotePlayerCommand: Sendable {
    let spotify: SpotifyProvider
    let deviceId: String
    let uri: String?
    let positionMs: Int
    let isPlaying: Bool
}
