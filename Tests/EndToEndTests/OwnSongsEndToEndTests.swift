import Foundation
import PartyTestSupport
import Testing

/// R18b with R31: a guest's budget and its own songs read the same on every instance; behind round-robin nginx each
/// request of the guest's phone may land on another instance.
@Suite("R18b a guest's budget and own songs through the binary", .alsoOnRoundRobinCluster)
struct OwnSongsEndToEndTests {
    @Test func theBudgetAndTheOwnRemovalHoldWhereverARequestLands() throws {
        let party = try TestParty.given()
        func addsLeft() throws -> Int? {
            let reply = try party.client.get("\(party.base)/track/queue?deviceId=guest-1")
            return (reply.json["budget"] as? [String: Any])?["addsLeft"] as? Int
        }
        func remove(_ number: Int, device: String) throws -> HTTPResponse {
            try party.client.send("DELETE", "\(party.base)/track/remove", json: ["uri": "demo:track:\(number)", "deviceId": device])
        }
        for number in 1...3 { #expect(try party.add(number).status == 200) }
        try party.add(4, device: "guest-2")
        for _ in 0..<6 { #expect(try addsLeft() == 7, "every instance counts the same three adds, and reading spends none") }

        let others = try remove(4, device: "guest-1")
        #expect(others.status == 403 && others.json["code"] as? String == "not_own_entry", "\(others.status) \(others.text)")
        let own = try remove(2, device: "guest-1")
        #expect(own.status == 200 && own.json["status"] as? String == "removed", "\(own.status) \(own.text)")
        for _ in 0..<3 { #expect(try !party.queueUris().contains("demo:track:2"), "gone on every instance") }
        #expect(try remove(2, device: "guest-1").status == 404, "a second removal finds nothing")

        #expect(try party.add(2).status == 200, "the page's undo adds it again")
        #expect(try addsLeft() == 6, "the undo is an add of its own")
        #expect(try party.queueUris().contains("demo:track:2"))
    }
}
