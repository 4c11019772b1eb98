import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R33 through the real server, and again with the party on three instances behind round-robin nginx: every
/// instance adds to one history, and any instance answers the recap once the party ended.
@Suite("R33 the history and the recap", .alsoOnRoundRobinCluster)
struct HistoryEndToEndTests {
    @Test func eachSkipLandsOnceInTheHistoryAndAnyInstanceAnswersTheRecap() throws {
        let party = try TestParty.given(settings: ["history": true])
        _ = try party.registerMonitor()
        for number in 1...4 { #expect(try party.add(number).status == 200) }
        #expect(try party.vote(2, device: "fan").status == 200)
        for _ in 0..<3 { #expect(try party.host("POST", "/track/next").status == 200) }
        // Round robin: each read may come from another instance; all read the one history.
        for _ in 0..<3 {
            let history = try party.host("GET", "/history")
            let uris = (history.json["items"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
            #expect(uris == ["demo:track:1", "demo:track:2", "demo:track:3"], "\(history.status) \(history.text)")
        }
        #expect(try party.host("DELETE", "").status == 204)
        for _ in 0..<3 {
            let recap = try party.client.get("\(party.base)/recap")
            #expect(recap.status == 200, "\(recap.text)")
            #expect((recap.json["songs"] as? [[String: Any]])?.count == 4 && recap.json["likes"] as? Int == 1)
            #expect(((recap.json["mostLiked"] as? [[String: Any]])?.first?["uri"] as? String) == "demo:track:2")
        }
        #expect(try party.client.get("\(party.base)/track/queue").status == 404, "R5: the party's API answers 404")
    }
}
