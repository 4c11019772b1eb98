import Foundation
import Testing
@testable import PartyCore

@Suite("R9 queue order")
struct QueueOrderingTests {
    @Test func playingEntryComesFirstWhateverItsLikes() {
        let queue = Queue(entries: [entry(1, track: 1, likes: 5), entry(2, track: 2)], currentEntryId: 2)
        #expect(queue.ordered().map(\.id) == [2, 1])
    }

    @Test func guestSongsSortAboveAutofilledOnesEvenWithFewerLikes() {
        let queue = Queue(entries: [entry(1, track: 1, likes: 9, autofilled: true), entry(2, track: 2, at: 5)], currentEntryId: nil)
        #expect(queue.ordered().map(\.id) == [2, 1])
    }

    @Test func moreLikesFirst() {
        let queue = Queue(entries: [entry(1, track: 1, likes: 1), entry(2, track: 2, at: 1, likes: 3), entry(3, track: 3, at: 2, likes: 2)],
                          currentEntryId: nil)
        #expect(queue.ordered().map(\.id) == [2, 3, 1])
    }

    @Test func likesBreakTiesByOldestRequest() {
        let queue = Queue(entries: [entry(1, track: 1, at: 30, likes: 2), entry(2, track: 2, at: 10, likes: 2), entry(3, track: 3, at: 20, likes: 2)],
                          currentEntryId: nil)
        #expect(queue.ordered().map(\.id) == [2, 3, 1])
    }

    /// A like's event carries the order after it, computed without changing (copying) the queue: the same
    /// as changing the count and ordering, for every entry, count and playing entry of a mixed queue, with and
    /// without fair order; and a vote finds its entry without ordering when one copy waits, as R10 says.
    @Test func theOrderAfterALikeIsTheOrderOfTheQueueWithThatLike() {
        let entries = (1...12).map { index in
            QueueEntry(id: Int64(index), track: track(index % 9), addedAt: epoch.addingTimeInterval(Double(index % 5)),
                       addedBy: ["A", "B", "C"][index % 3], autofilled: index % 4 == 0, likeCount: index % 3)
        }
        for fairness in [nil, FairOrder(playedByAdder: ["B": 2])] {
            for current in [nil, Int64(3), Int64(8)] {
                let queue = Queue(entries: entries, currentEntryId: current, fairness: fairness)
                for changed in entries {
                    for count in [0, 1, 2, 5] {
                        var liked = queue
                        liked.setLikeCount(count, ofEntry: changed.id)
                        #expect(queue.waitingIds(likeCount: count, ofEntry: changed.id) == liked.waiting.map(\.id))
                    }
                }
                for number in 0...9 {
                    let uri = "demo:track:\(number)"
                    let byOrder = queue.waiting.first { $0.track.uri == uri } ?? queue.current.flatMap { $0.track.uri == uri ? $0 : nil }
                    #expect(queue.target(uri: uri) == byOrder)
                }
            }
        }
    }

    @Test func nextIsTheFirstWaitingEntryNotTheCurrentOne() {
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 2, at: 1, likes: 1), entry(3, track: 3, at: 2)], currentEntryId: 2)
        #expect(queue.next?.id == 1)
        #expect(queue.waiting.map(\.id) == [1, 3])
    }
}

@Suite("R10 duplicates, R12 blacklist")
struct AdmissionTests {
    let empty = Blacklist(words: [])

    @Test func aWaitingTrackCannotBeAddedAgain() {
        let queue = Queue(entries: [entry(1, track: 7)], currentEntryId: nil)
        #expect(queue.admission(for: track(7), blacklist: empty) == .refuse(.duplicate(existingUri: "demo:track:7", position: 1)))
        #expect(queue.admission(for: track(8), blacklist: empty) == .insert)
    }

    @Test func thePlayingTrackMayBeQueuedAgainOnce() {
        var queue = Queue(entries: [entry(1, track: 7)], currentEntryId: 1)
        #expect(queue.admission(for: track(7), blacklist: empty) == .insert)
        queue.entries.append(entry(2, track: 7, at: 1))
        #expect(queue.admission(for: track(7), blacklist: empty) == .refuse(.duplicate(existingUri: "demo:track:7", position: 1)))
    }

    @Test func removeAndVoteTargetTheWaitingCopy() {
        let queue = Queue(entries: [entry(1, track: 7), entry(2, track: 7, at: 1)], currentEntryId: 1)
        #expect(queue.target(uri: "demo:track:7")?.id == 2)
        let alone = Queue(entries: [entry(1, track: 7)], currentEntryId: 1)
        #expect(alone.target(uri: "demo:track:7")?.id == 1)
        #expect(alone.target(uri: "demo:track:8") == nil)
    }

    @Test func blacklistMatchesSubstringsOfTitleOrArtistCaseInsensitively() {
        let blacklist = Blacklist(words: ["SCHLAGER"])
        #expect(blacklist.blocks(track(1, name: "Mein Schlagerherz")))
        #expect(blacklist.blocks(track(2, artist: "Die Schlagerbande")))
        #expect(!blacklist.blocks(track(3, name: "Rock")))
        let queue = Queue(entries: [], currentEntryId: nil)
        #expect(queue.admission(for: track(1, name: "schlager"), blacklist: blacklist) == .refuse(.blacklisted))
    }

    @Test func blankBlacklistWordsBlockNothing() {
        #expect(!Blacklist(words: [""]).blocks(track(1)))
        #expect(Blacklist.normalized("  Metal \n") == "Metal")
    }
}

@Suite("Auto-filled entries and guest requests")
struct PromotionTests {
    @Test func aGuestRequestForAnAutofilledSongPromotesItInsteadOfRefusing() {
        let queue = Queue(entries: [entry(1, track: 1), entry(2, track: 7, autofilled: true)], currentEntryId: 1)
        #expect(queue.admission(for: track(7), blacklist: Blacklist(words: [])) == .promote(entryId: 2))
    }
}

@Suite("R9b fair order")
struct FairOrderTests {
    /// Entries numbered in the order they were added, by the named adder.
    func fairQueue(_ adders: [String], likes: [Int64: Int] = [:], played: [String: Int] = [:], current: Int64? = nil) -> Queue {
        let entries = adders.enumerated().map { index, adder in
            QueueEntry(id: Int64(index + 1), track: track(index + 1), addedAt: epoch.addingTimeInterval(Double(index)),
                       addedBy: adder, likeCount: likes[Int64(index + 1)] ?? 0)
        }
        return Queue(entries: entries, currentEntryId: current, fairness: FairOrder(playedByAdder: played))
    }

    @Test func theSpecExampleTakesAddersInTurns() {
        // A adds 5 songs (ids 1–5), then B (6) and C (7) one each, no likes → A1, B1, C1, A2, A3, A4, A5.
        let queue = fairQueue(["A", "A", "A", "A", "A", "B", "C"])
        #expect(queue.ordered().map(\.id) == [1, 6, 7, 2, 3, 4, 5])
    }

    @Test func oneLikeOnA3PutsA3First() {
        let queue = fairQueue(["A", "A", "A", "A", "A", "B", "C"], likes: [3: 1])
        // A3 then counts as A's song waiting ahead of A1: B1 and C1 come before A1 (the rule read literally).
        #expect(queue.ordered().map(\.id) == [3, 6, 7, 1, 2, 4, 5])
    }

    @Test func songsPlayedCountAgainstTheAdder() {
        // A has had two songs played: B's and C's first songs go before A's next one.
        let queue = fairQueue(["A", "B", "C", "B"], played: ["A": 2])
        #expect(queue.ordered().map(\.id) == [2, 3, 4, 1])
    }

    @Test func thePlayingSongCountsForItsAdder() {
        // A's first song starts at once; the rule counts it as A's song ahead: B1 and C1 play before A2.
        var queue = fairQueue(["A", "A", "B", "C"], current: 1)
        queue.entries.append(QueueEntry(id: 9, track: track(9), addedAt: epoch, addedBy: "", autofilled: true))
        #expect(queue.ordered().map(\.id) == [1, 3, 4, 2, 9])
    }

    @Test func anAutoFilledPlayingSongCountsForNobody() {
        var queue = fairQueue(["A", "B", "A"])
        queue.entries.append(QueueEntry(id: 9, track: track(9), addedAt: epoch, addedBy: "", autofilled: true))
        queue.currentEntryId = 9
        #expect(queue.ordered().map(\.id) == [9, 1, 2, 3])
    }

    @Test func withoutFairnessR9HoldsExactly() {
        var queue = fairQueue(["A", "A", "A", "A", "A", "B", "C"])
        queue.fairness = nil
        #expect(queue.ordered().map(\.id) == [1, 2, 3, 4, 5, 6, 7])
    }

    @Test func vetoSharesOutsideZeroToOneAreInvalid() {
        #expect(PartySettings.isValid(vetoShare: 0) && PartySettings.isValid(vetoShare: 0.4) && PartySettings.isValid(vetoShare: 1))
        #expect(!PartySettings.isValid(vetoShare: -0.1) && !PartySettings.isValid(vetoShare: 1.01))
        #expect(!PartySettings.isValid(vetoShare: .nan) && !PartySettings.isValid(vetoShare: .infinity))
    }
}
