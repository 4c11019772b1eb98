import Foundation
import PartyCore
import Providers

extension PartyState {
    /// R21/R22: registers the party's monitor. The host PIN pairs a new monitor (new token); the monitor's
    /// own token re-registers it. Playback state is untouched, so a re-registered monitor continues.
    mutating func registerMonitor(deviceId: String, caller: Caller, party: Party) throws -> String {
        let token: String
        if caller == .monitor, let existing = try store.monitorToken(partyId: party.id) {
            token = existing
        } else {
            token = self.token()
            try store.setMonitor(token: token, partyId: party.id)
        }
        presence.heartbeat(partyId: party.id, at: now)
        announceDeviceChanges()
        republishCurrentTrack(partyId: party.id)
        return token
    }

    /// R22: tells every client (the monitor first of all) what plays and where, after a re-register.
    mutating func republishCurrentTrack(partyId: String) {
        guard let (playback, queue) = try? storedPlayback(partyId: partyId), let entry = queue.current else { return }
        publishTrackChanged(partyId: partyId, entry: entry, playback: playback)
    }

    /// R23: relays the monitor's report as a `progress` event; never changes state. Counts as a heartbeat.
    mutating func reportProgress(position: Int, duration: Int, paused: Bool, party: Party) {
        presence.heartbeat(partyId: party.id, at: now)
        announceDeviceChanges()
        publish(ServerEvent(type: .progress, partyId: party.id, payload: [
            ("position", String(position)), ("duration", String(duration)), ("paused", String(paused)),
        ]))
    }

    /// Publishes `device-changed` for every party whose `deviceActive` changed since last told.
    /// `also` names parties whose monitor streams just opened or closed.
    mutating func announceDeviceChanges(also partyIds: [String] = []) {
        for change in presence.changes(at: now, monitorStreams: monitorStreams, also: partyIds) {
            publish(ServerEvent(type: .deviceChanged, partyId: change.partyId, payload: [("deviceActive", String(change.active))]))
        }
    }

    /// Spotify has no queue we could use (SPEC): after every playback change the server tells the SDK device
    /// what to play, by uri and position, or to pause. This reads what to say; the service says it off the lock.
    func remotePlayerCommand(partyId: String, providers: ProviderRegistry) -> RemotePlayerCommand? {
        guard let deviceId = sdkDevices[partyId], let party = try? store.party(id: partyId),
              let spotify = providers.provider(named: party.provider)?.bound(to: party.id) as? SpotifyProvider else { return nil }
        let current = try? store.queue(partyId: partyId, currentEntryId: party.playback.currentEntryId).current
        return RemotePlayerCommand(spotify: spotify, deviceId: deviceId, uri: current?.track.uri,
                                   positionMs: party.playback.positionMs(at: now), isPlaying: party.playback.isPlaying && current != nil)
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
