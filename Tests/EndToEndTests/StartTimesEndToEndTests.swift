import Foundation
import Testing
import TestSupport

@Suite("R18a startsInMs and mine on queue entries", .alsoOnRoundRobinCluster)
struct StartTimesEndToEndTests {
    @Test func everyEntryCarriesItsStartAndOnlyTheAskersOwnAreMine() throws {
        let party = try TestParty.given()
        try party.add(1, device: "A")
        try party.add(2, device: "B")
        try party.add(3, device: "A")
        let queue = try party.queue(device: "A")
        let durations = queue.map { $0["duration_ms"] as? Int ?? 0 }
        // Nothing plays: the first song starts now, each next one after the durations ahead.
        #expect(queue.map { $0["startsInMs"] as? Int } == [0, durations[0], durations[0] + durations[1]])
        #expect(queue.map { $0["mine"] as? Bool } == [true, nil, true], "A's own entries, and nothing about B's")
        #expect(try party.queue().allSatisfy { $0["mine"] == nil }, "without a deviceId nobody's songs are named")
    }

    @Test func whilePlayingTheTimesCountDownFromTheRestOfTheCurrentSong() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1, device: "A")
        try party.add(2, device: "B")
        #expect(try eventually { try party.current()["track"] != nil })
        #expect(try party.host("POST", "/track/pause").status == 200)
        let position = try party.current()["progressMs"] as? Int ?? 0
        let queue = try party.queue()
        let duration = queue.first?["duration_ms"] as? Int ?? 0
        #expect(queue.first?["startsInMs"] as? Int == 0, "the playing entry has started")
        let second = queue.first { $0["uri"] as? String == "demo:track:2" }
        #expect(queue.first?["uri"] as? String == "demo:track:1")
        #expect(second?["startsInMs"] as? Int == duration - position, "paused: the rest of the current song, frozen")
    }
}
