import Foundation
import Testing

/// Issue 10, item 6: a guest gave one song 14,295 likes in a minute by making up device ids.
@Suite("Attack: likes and adds cannot be stuffed")
struct VoteStuffingAttackTests {
    @Test func rotatingDeviceIdsGainsNothingBeyondTheAddressesShare() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        try party.add(1)
        let stuffer = party.client.from("127.0.12.1")
        var statuses: [Int] = []
        for index in 0..<70 {
            statuses.append(try stuffer.send("POST", "\(party.base)/track/vote",
                                             json: ["uri": "demo:track:1", "deviceId": "made-up-\(index)"]).status)
        }
        #expect(statuses.prefix(60).allSatisfy { $0 == 200 } && statuses.suffix(10).allSatisfy { $0 == 429 }, "\(statuses)")
        #expect(try party.queue().first?["likeCount"] as? Int == 60)
        let honest = try party.client.from("127.0.12.2").send("POST", "\(party.base)/track/vote",
                                                              json: ["uri": "demo:track:1", "deviceId": "honest"])
        #expect(honest.status == 200 && honest.json["likeCount"] as? Int == 61, "other guests still like")

        var adds: [Int] = []
        for number in 2...23 {
            adds.append(try stuffer.send("POST", "\(party.base)/track/addToPlaylist",
                                         json: ["uri": "demo:track:\(number)", "deviceId": "adder-\(number)"]).status)
        }
        #expect(adds.prefix(20).allSatisfy { $0 == 200 } && adds.suffix(2).allSatisfy { $0 == 429 }, "20 adds a minute per address: \(adds)")
    }

    @Test func oneDeviceLikesAtMostThirtyTimesAMinuteAndItsAddLimitIsPerParty() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        try party.add(1)
        let toggles = try (0..<31).map { _ in try party.vote(1, device: "fidget").status }
        #expect(toggles.prefix(30).allSatisfy { $0 == 200 } && toggles.last == 429)
        for number in 2...11 { #expect(try party.add(number, device: "busy").status == 200) }
        #expect(try party.add(12, device: "busy").status == 429, "R11: the 11th add in a minute")
        let other = try TestParty(server)
        #expect(try other.add(12, device: "busy").status == 200, "R11 counts in each party")
    }
}
