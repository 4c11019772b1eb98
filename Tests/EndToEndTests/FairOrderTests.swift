import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// The waiting guest songs' track numbers, in the server's order (the playing and auto-filled entries left out).
private func waitingGuestSongs(_ queue: [[String: Any]]) -> [Int] {
    queue.filter { $0["isCurrentlyPlaying"] as? Bool != true && $0["autofilled"] as? Bool != true }
        .compactMap { ($0["uri"] as? String)?.split(separator: ":").last.flatMap { Int($0) } }
}

/// R9b live: a change of the setting every instance applies, and the per-adder counter across a restart; the
/// order and the settings' answers are `APIContractTests/FairOrderRoutesTests`.
@Suite("R9b fair order and the party settings", .alsoOnRoundRobinCluster)
struct FairOrderTests {
    @Test func theHostTurnsFairOrderOnAndOffLive() throws {
        let party = try TestParty.given()
        for number in 1...3 { try party.add(number, device: "A") }
        try party.add(4, device: "B")
        let events = try party.events()
        let on = try party.host("PUT", "/settings", json: ["fairQueue": true])
        #expect(on.status == 200 && on.json["fairQueue"] as? Bool == true && on.json["vetoShare"] as? Double == 0)
        _ = try events.waitFor("queue-updated") { $0.payload["reason"] as? String == "settings" }
        #expect(waitingGuestSongs(try party.queue()) == [1, 4, 2, 3])
        #expect(try party.host("PUT", "/settings", json: ["fairQueue": false]).status == 200)
        #expect(waitingGuestSongs(try party.queue()) == [1, 2, 3, 4])
    }

    @Test func songsPlayedPerAdderCountAndSurviveARestart() throws {
        let first = try ServerProcess()
        let party = try TestParty(first, settings: ["fairQueue": true])
        _ = try party.registerMonitor()
        try party.add(1, device: "A")
        #expect(try eventually { try party.current()["track"] != nil }, "the idle party starts A's song")
        #expect(try party.host("POST", "/track/next").status == 200, "A's song is played (skipped counts too)")
        try party.add(4, device: "A")
        try party.add(5, device: "B")
        #expect(waitingGuestSongs(try party.queue()) == [5, 4], "A has had a song played, B none")
        first.stop()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        #expect(waitingGuestSongs(try TestPartyHandle(party: party, server: second).queue()) == [5, 4], "the counter survives a restart")
    }
}
