import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// Playback as the event streams tell it; the API's answers are `APIContractTests/PlaybackRoutesTests`.
@Suite("Playback on the event stream (R21, R22)", .alsoOnRoundRobinCluster)
struct PlaybackTests {
    @Test func aReRegisteredMonitorIsToldToContinueAtThePosition() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        try party.add(2)
        party.server.letPass(1.5)
        #expect(try party.current()["progressMs"] as? Int ?? 0 >= 1_000, "a second into the song")
        let stream = try party.events()
        let again = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1", "kind": "monitor"], auth: token)
        #expect(again.status == 200 && again.json["monitorToken"] as? String == token)
        let changed = try stream.waitFor("track-changed")
        #expect(Int(changed.payload["progressMs"] as? String ?? "") ?? 0 >= 1_000, "R22: never from 0:00")
    }

    @Test func deviceActiveFollowsTheMonitorStream() throws {
        let party = try TestParty.given(.live)
        let observer = try party.events()
        let token = try party.registerMonitor()
        try observer.waitFor("device-changed") { $0.payload["deviceActive"] as? String == "true" }
        let monitorStream = try party.events(monitorToken: token)
        #expect(monitorStream.status == 200)
        monitorStream.close()
        // The registration heartbeat keeps it active for 15 s; then the closed stream makes it inactive.
        try observer.waitFor("device-changed", timeout: 15 + 2 * patience) { $0.payload["deviceActive"] as? String == "false" }
        #expect(try party.current()["deviceActive"] as? Bool == false)
        #expect(try party.host("POST", "/track/start").status == 409)
    }
}
