import Foundation
import PartyCore
import Providers

extension PartyService {
    private static let remoteControl = DispatchQueue(label: "musicvoting.remote-playback")

    /// `PUT …/spotify/deviceId`: the monitor's SDK device; the current track continues there (R22).
    func registerSDKDevice(_ deviceId: String, party: Party) {
        locked { sdkDevices[party.id] = deviceId }
        driveRemotePlayer(partyId: party.id)
    }

    /// Spotify has no queue we could use (SPEC): after every playback change the server tells the SDK device
    /// what to play, by uri and position, or to pause. Runs on its own serial queue, never on HTTP threads.
    func driveRemotePlayer(partyId: String) {
        let command: (SpotifyProvider, String, String?, Int, Bool)? = locked {
            guard let deviceId = sdkDevices[partyId], let party = try? store.party(id: partyId),
                  let spotify = (try? provider(for: party)) as? SpotifyProvider else { return nil }
            let current = try? store.queue(partyId: partyId, currentEntryId: party.playback.currentEntryId).current
            return (spotify, deviceId, current?.track.uri, party.playback.positionMs(at: now), party.playback.isPlaying && current != nil)
        }
        guard let (spotify, deviceId, uri, position, playing) = command else { return }
        let hub = self.hub
        Self.remoteControl.async {
            do { try spotify.control(deviceId: deviceId, uri: uri, positionMs: position, isPlaying: playing) } catch {
                // Music must never stop silently: the host and the TV are told why.
                let message = ErrorMapping.httpError(error, context: "spotify playback control").message
                hub.publish(ServerEvent(type: .playbackError, partyId: partyId, payload: [("message", message)]))
            }
        }
    }
}

extension PartyService {
    /// `login-success`, scoped to the party; an iOS login says `source: ios` (+ installationId) so the web
    /// monitor does not re-initialise its player.
    func publishLogin(party: Party, source: String, installationId: String?) {
        var payload: [(String, String)] = []
        if let installationId, source == "ios" { payload.append(("installationId", installationId)) }
        hub.publish(ServerEvent(type: .loginSuccess, partyId: party.id, source: source, payload: payload))
    }
}
