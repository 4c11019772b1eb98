import Foundation
import Testing
@testable import PartyCore

@Suite("R18a when does my song play")
struct StartTimesTests {
    @Test func theRestOfTheCurrentSongThenTheDurationsAhead() {
        // Every fixture track lasts 30 s; the current one is 12 s in.
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 2, at: 1), entry(3, track: 3, at: 2, likes: 1)], currentEntryId: 1)
        let ordered = queue.ordered()
        #expect(ordered.map(\.id) == [1, 3, 2])
        #expect(queue.startsInMs(ordered, currentPositionMs: 12_000) == [1: 0, 3: 18_000, 2: 48_000])
    }

    @Test func withNothingPlayingTheFirstWaitingSongStartsNow() {
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 2, at: 1)], currentEntryId: nil)
        #expect(queue.startsInMs(queue.ordered(), currentPositionMs: 0) == [1: 0, 2: 30_000])
    }

    @Test func aPositionPastTheEndCountsNothingLeft() {
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 2, at: 1)], currentEntryId: 1)
        #expect(queue.startsInMs(queue.ordered(), currentPositionMs: 99_000) == [1: 0, 2: 0])
    }
}
