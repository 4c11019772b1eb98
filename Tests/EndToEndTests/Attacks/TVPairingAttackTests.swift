import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// The TV pairing can be completed only by the TV's own host.
@Suite("Attack: taking somebody else's TV through the pairing", .alsoOnRoundRobinCluster)
struct TVPairingAttackTests {
    static func openPairing(_ client: TestClient) throws -> (code: String, secret: String) {
        let opened = try client.send("POST", "/api/tv/pairing")
        guard opened.status == 201, let code = opened.json["code"] as? String, let secret = opened.json["secret"] as? String else {
            throw TestFailure(description: "open pairing: \(opened.status) \(opened.text)")
        }
        return (code, secret)
    }

    @Test func aConnectedTVIsNeverReplacedSilentlyAndTheOldOneIsTold() throws {
        let party = try TestParty.given()
        let oldToken = try party.registerMonitor(device: "living-room")
        let oldStream = try party.events(monitorToken: oldToken, source: "127.0.0.1")
        defer { oldStream.close() }
        #expect(eventually(timeout: 15) { (try? party.current()["deviceActive"] as? Bool) == true })

        let second = try Self.openPairing(party.client.from("127.0.31.1"))
        let silent = try party.host("POST", "/tv/pair", json: ["code": second.code])
        #expect(silent.status == 409 && silent.json["code"] as? String == "monitor_connected", "the host is asked first")
        #expect(try party.client.send("POST", "\(party.base)/track/progress", json: ["position": 0, "duration": 0, "paused": true],
                                      auth: oldToken).status == 204, "the connected TV keeps its role")

        #expect(try party.host("POST", "/tv/pair", json: ["code": second.code, "replace": true]).status == 200)
        let told = try party.client.send("POST", "\(party.base)/track/progress", json: ["position": 0, "duration": 0, "paused": true],
                                         auth: oldToken)
        #expect(told.status == 403 && told.json["code"] as? String == "monitor_replaced")
        #expect(try party.client.send("GET", "\(party.base)/spotify/token", auth: oldToken).status == 403,
                "the replaced TV reads no provider token")
    }

    @Test func aPairingFloodFromOneNetworkLeavesRoomForARealTV() throws {
        let server = try InProcessServer()
        var opened = 0
        for index in 0..<100 {
            if try server.client.from("127.0.40.\(index + 1)").send("POST", "/api/tv/pairing").status == 201 { opened += 1 }
        }
        #expect(opened == 20, "one network opens 20 pairings a minute and holds no more")
        #expect(try server.client.from("127.0.41.1").send("POST", "/api/tv/pairing").status == 201, "a TV elsewhere still pairs")
    }

    @Test func sweepingCodesFromManyNetworksStopsAfterThirtyWrongClaimsAMinute() throws {
        let server = try InProcessServer()
        let victim = try Self.openPairing(server.client.from("127.0.50.1"))
        var statuses: [Int: Int] = [:]
        for guess in 0..<60 {
            // An attacker's own parties, each claiming from a network of its own.
            let party = try TestParty(server)
            let code = String(format: "%06d", (Int(victim.code)! + 1 + guess) % 1_000_000)
            let status = try server.client.from("127.\(60 + guess / 200).\(guess % 200).9")
                .send("POST", "\(party.base)/tv/pair", json: ["code": code], auth: party.hostPin).status
            statuses[status, default: 0] += 1
        }
        #expect(statuses[404] == 30 && statuses[429] == 30, "\(statuses)")
        let status = try server.client.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(victim.secret)"]).json["status"] as? String
        #expect(status == "waiting", "the victim's TV is still waiting for its own host")
    }
}
