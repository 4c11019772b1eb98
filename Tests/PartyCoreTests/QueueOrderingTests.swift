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
