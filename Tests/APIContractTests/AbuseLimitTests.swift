import Foundation
import Testing

/// Issue 10, item 6: a guest gave one song 14,295 likes in a minute by making up device ids.
@Suite("Likes and adds cannot be stuffed")
struct AbuseLimitTests {
    @Test func rotatingDeviceIdsGainsNothingBeyondTheAddressesShare() throws {
        let party = try TestParty.given()
        try party.add(1)
        let stuffer = party.client.from("192.0.2.1")
        var replies: [Reply] = []
        for index in 0..<70 {
            replies.append(try stuffer.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "made-up-\(index)"]))
        }
        #expect(replies.prefix(60).allSatisfy { $0.status == 200 }, "\(replies.map(\.status))")
        #expect(replies.suffix(10).allSatisfy { $0.isError(429, "Zu viele Anfragen — bitte kurz warten.") }, "\(replies.last.map(String.init(describing:)) ?? "")")
        #expect(try party.queue().first?["likeCount"] as? Int == 60)
        let honest = try party.client.from("192.0.3.1").send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "honest"])
        #expect(honest.status == 200 && honest.json["likeCount"] as? Int == 61, "other guests still like: \(honest)")

        var adds: [Reply] = []
        for number in 2...23 {
            adds.append(try stuffer.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": "adder-\(number)"]))
        }
        #expect(adds.prefix(20).allSatisfy { $0.status == 200 }, "20 adds a minute per address: \(adds.map(\.status))")
        #expect(adds.suffix(2).allSatisfy { $0.isError(429, "Zu viele Anfragen — bitte kurz warten.") }, "\(adds.last.map(String.init(describing:)) ?? "")")
    }

    @Test func oneDeviceLikesAtMostThirtyTimesAMinuteAndItsAddLimitIsPerParty() throws {
        let party = try TestParty.given()
        try party.add(1)
        let toggles = try (0..<31).map { _ in try party.vote(1, device: "fidget") }
        #expect(toggles.prefix(30).allSatisfy { $0.status == 200 })
        #expect(toggles.last?.isError(429, "Zu viele Anfragen — bitte kurz warten.") == true, "\(toggles.last.map(String.init(describing:)) ?? "")")
        for number in 2...11 { #expect(try party.add(number, device: "busy").status == 200) }
        #expect(try party.add(12, device: "busy").isError(429, "Zu viele Anfragen — bitte kurz warten."), "R11: the 11th add in a minute")
        let other = try TestParty(party.server)
        #expect(try other.add(12, device: "busy").status == 200, "R11 counts in each party")
    }

    /// The original clients send no device id: the client address stands for the device (R11: 10 adds a minute per
    /// party), the one a trusted proxy names in `X-Forwarded-For`.
    @Test func addsWithoutADeviceIdAreLimitedPerPartyAndPerForwardedClient() throws {
        let server = try TestServer { $0.trustedProxies = ["127.0.0.1"] }
        let first = try TestParty(server)
        let second = try TestParty(server)
        func add(_ party: TestParty, _ number: Int, forwardedFor client: String) throws -> Reply {
            try server.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)"],
                                   headers: ["X-Forwarded-For": client])
        }
        let replies = try (1...11).map { try add(first, $0, forwardedFor: "198.51.100.7") }
        #expect(replies.prefix(10).allSatisfy { $0.status == 200 }, "\(replies.map(\.status))")
        #expect(replies.last?.isError(429, "Zu viele Anfragen — bitte kurz warten.") == true, "the 11th add from one client is refused")
        #expect(try add(first, 22, forwardedFor: "198.51.100.8").status == 200, "another guest behind the same proxy has their own")
        #expect(try add(second, 1, forwardedFor: "198.51.100.7").status == 200, "and the limit is per party")
    }
}
