import Foundation
import HTTPServer
import PartyCore

extension PartyService {
    /// R21/R22: registers the party's monitor. The host PIN pairs a new monitor (new token); the monitor's
    /// own token re-registers it. Playback state is untouched, so a re-registered monitor continues.
    func registerMonitor(deviceId: String, caller: Caller, party: Party) throws -> String {
        try locked {
            let token: String
            if caller == .monitor, let existing = try store.monitorToken(partyId: party.id) {
                token = existing
            } else {
                token = self.token()
                try store.setMonitor(token: token, deviceId: deviceId, partyId: party.id)
            }
            presence.heartbeat(partyId: party.id, at: now)
            announceDeviceChanges()
            republishCurrentTrack(partyId: party.id)
            return token
        }
    }

    /// R22: tells every client (the monitor first of all) what plays and where, after a re-register.
    func republishCurrentTrack(partyId: String) {
        guard let (playback, queue) = try? storedPlayback(partyId: partyId), let entry = queue.current else { return }
        publishTrackChanged(partyId: partyId, entry: entry, playback: playback)
    }

    /// R23: relays the monitor's report as a `progress` event; never changes state. Counts as a heartbeat.
    func reportProgress(position: Int, duration: Int, paused: Bool, party: Party) {
        locked {
            presence.heartbeat(partyId: party.id, at: now)
            announceDeviceChanges()
        }
        hub.publish(ServerEvent(type: .progress, partyId: party.id, payload: [
            ("position", String(position)), ("duration", String(duration)), ("paused", String(paused)),
        ]))
    }

    /// Opens an SSE stream; a monitor's stream keeps `deviceActive` true while it is open.
    func openEventStream(party: Party, clientAddress: String, asMonitor: Bool, lastEventId: Int?) throws -> EventStream {
        let stream = try hub.subscribe(partyId: party.id, address: clientAddress, lastEventId: lastEventId)
        guard asMonitor else { return stream }
        locked {
            presence.streamOpened(partyId: party.id)
            announceDeviceChanges()
        }
        stream.whenFinished { [weak self] in
            guard let self else { return }
            self.locked {
                self.presence.streamClosed(partyId: party.id)
                self.announceDeviceChanges()
            }
        }
        return stream
    }

    /// Publishes `device-changed` for every party whose `deviceActive` changed since last told.
    func announceDeviceChanges() {
        locked {
            for change in presence.changes(at: now) {
                hub.publish(ServerEvent(type: .deviceChanged, partyId: change.partyId,
                                        payload: [("deviceActive", String(change.active))]))
            }
        }
    }
}
