import Foundation
import Testing
@testable import PartyCore

@Suite("R15 refill choice")
struct RefillTests {
    let empty = Queue(entries: [], currentEntryId: nil)
    let none = Blacklist(words: [])

    @Test func neverTheSongThatJustPlayed() {
        let chosen = Refill.choose(from: [track(1), track(2), track(3)], queue: empty, blacklist: none, recentlyPlayed: ["demo:track:2"])
        #expect(chosen.map(\.uri) == ["demo:track:1", "demo:track:3"])
    }

    @Test func recentlyPlayedSongsComeBackOnlyWhenNothingElseIsLeftOldestFirst() {
        let recent = ["demo:track:1", "demo:track:2", "demo:track:3"]
        let fresh = Refill.choose(from: [track(1), track(2), track(3), track(4)], queue: empty, blacklist: none, recentlyPlayed: recent)
        #expect(fresh.map(\.uri) == ["demo:track:4"])
        let exhausted = Refill.choose(from: [track(1), track(2), track(3)], queue: empty, blacklist: none, recentlyPlayed: recent)
        #expect(exhausted.map(\.uri) == ["demo:track:3", "demo:track:2"], "least recently played first; never the last one")
    }

    @Test func waitingBlacklistedAndPlayingSongsAreSkippedAndTheBatchIsBounded() {
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 2)], currentEntryId: 1)
        let candidates = (1...30).map { track($0, name: $0 == 5 ? "Verboten" : nil) }
        let chosen = Refill.choose(from: candidates, queue: queue, blacklist: Blacklist(words: ["verboten"]), recentlyPlayed: [])
        #expect(chosen.count == Refill.batchSize)
        #expect(!chosen.contains { ["demo:track:1", "demo:track:2", "demo:track:5"].contains($0.uri) })
    }
}
