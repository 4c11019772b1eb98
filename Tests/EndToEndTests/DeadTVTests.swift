import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R20a: the truth about a TV that died without a word, and one TV on purpose.
@Suite("A TV that stops answering, and a second TV", .alsoOnRoundRobinCluster)
struct DeadTVTests {
    static func report(_ party: TestParty, token: String) throws -> Int {
        try party.client.send("POST", "\(party.base)/track/progress", json: ["position": 0, "duration": 0, "paused": true], auth: token).status
    }

    /// A TV registered with the host PIN, its monitor stream open, one report made, seen as connected.
    static func connectTV(_ party: TestParty, device: String = "tv-1") throws -> (token: String, stream: SSEClient) {
        let token = try party.registerMonitor(device: device)
        let stream = try party.events(monitorToken: token)
        guard try report(party, token: token) == 204,
              eventually(timeout: 15, { (try? party.current()["deviceActive"] as? Bool) == true }) else {
            stream.close()
            throw TestFailure(description: "the TV did not connect")
        }
        return (token, stream)
    }

    @Test func aTVWhoseStreamStaysOpenButStopsReportingIsNoTVWithinTenSeconds() throws {
        let party = try TestParty.given()
        // The TV's stream stays open: a power cut or a network switch closes nothing.
        let (token, tv) = try Self.connectTV(party)
        defer { tv.close() }
        let host = try party.events(source: "127.0.0.9")
        defer { host.close() }
        try party.add(1)
        // From here on the TV says nothing.
        party.server.letPass(10)
        let gone = try host.waitFor("device-changed", timeout: 30) { $0.payload["deviceActive"] as? String == "false" }
        #expect(gone.payload["deviceActive"] as? String == "false", "the host is told")
        let current = try party.current()
        #expect(current["deviceActive"] as? Bool == false && current["state"] as? String == "stalled"
                && current["stallReason"] as? String == "no-monitor")
        let start = try party.host("POST", "/track/start")
        #expect(start.status == 409 && start.error == "Kein Wiedergabegerät verbunden.", "controls say why")
        // It comes back and reports: it is the TV again.
        #expect(try Self.report(party, token: token) == 204)
        #expect(eventually(timeout: 15) { (try? party.current()["deviceActive"] as? Bool) == true })
    }

    @Test func aTVThatKeepsReportingStaysConnectedPastTheDeadline() throws {
        let party = try TestParty.given()
        let (token, tv) = try Self.connectTV(party)
        defer { tv.close() }
        let host = try party.events(source: "127.0.0.9")
        defer { host.close() }
        // An idle TV (no song) reports every second: 12 reports across more than the 8 s deadline.
        for _ in 0..<12 {
            #expect(try Self.report(party, token: token) == 204)
            party.server.letPass(1)
        }
        #expect(try party.current()["deviceActive"] as? Bool == true)
        #expect(!host.received.contains { $0.type == "device-changed" && $0.payload["deviceActive"] as? String == "false" },
                "never reported gone")
        #expect(!host.received.contains { $0.type == "progress" }, "an idle TV's heartbeat is no progress event for everyone")
    }

    @Test func registeringASecondTVWithTheHostPinAsksInsteadOfTakingOver() throws {
        let party = try TestParty.given()
        let (first, stream) = try Self.connectTV(party, device: "living-room")
        defer { stream.close() }
        let asked = try party.host("PUT", "/device", json: ["deviceId": "kitchen", "kind": "monitor", "replace": false])
        #expect(asked.status == 409 && asked.json["code"] as? String == "monitor_connected")
        #expect(try Self.report(party, token: first) == 204, "the first TV keeps its role")
        let replaced = try party.host("PUT", "/device", json: ["deviceId": "kitchen", "kind": "monitor", "replace": true])
        #expect(replaced.status == 200)
        let told = try party.client.send("POST", "\(party.base)/track/progress", json: ["position": 0, "duration": 0, "paused": true], auth: first)
        #expect(told.status == 403 && told.json["code"] as? String == "monitor_replaced")
    }
}
