import Foundation
import Testing
@testable import PartyCore

@Suite("R10a versions of one song are duplicates")
struct SongIdentityTests {
    struct Pair: CustomTestStringConvertible, Sendable {
        let left: (title: String, artist: String)
        let right: (title: String, artist: String)
        let same: Bool
        var testDescription: String { "\(left.title) / \(left.artist) vs \(right.title) / \(right.artist)" }
    }

    static let pairs: [Pair] = [
        Pair(left: ("Free Bird", "Lynyrd Skynyrd"), right: ("Free Bird", "Lynyrd Skynyrd"), same: true),
        Pair(left: ("Free Bird", "Lynyrd Skynyrd"), right: ("Free Bird - Remastered 2011", "Lynyrd Skynyrd"), same: true),
        // YouTube: the artist stands in the video title, the channel is the artist (or its "- Topic"/VEVO channel).
        Pair(left: ("Free Bird", "Lynyrd Skynyrd"), right: ("Lynyrd Skynyrd - Free Bird (Official Audio)", "Lynyrd Skynyrd"), same: true),
        Pair(left: ("Free Bird", "Lynyrd Skynyrd - Topic"), right: ("Lynyrd Skynyrd - Free Bird (Official Audio)", "LynyrdSkynyrdVEVO"), same: true),
        Pair(left: ("Song (feat. X)", "Artist"), right: ("Song", "Artist"), same: true),
        Pair(left: ("Song feat. X", "Artist"), right: ("Song [Radio Edit]", "Artist feat. X"), same: true),
        Pair(left: ("Song - Radio Edit", "Artist"), right: ("Song (Lyrics)", "Artist"), same: true),
        Pair(left: ("Déjà Vu", "Beyoncé"), right: ("DEJA VU", "beyonce"), same: true),
        Pair(left: ("Über den Wolken", "Reinhard Mey"), right: ("uber den wolken - Official Video", "REINHARD MEY"), same: true),
        // Different songs stay apart.
        Pair(left: ("Free Bird", "Lynyrd Skynyrd"), right: ("Sweet Home Alabama", "Lynyrd Skynyrd"), same: false),
        Pair(left: ("Free Bird", "Lynyrd Skynyrd"), right: ("Free Bird", "Another Band"), same: false),
        Pair(left: ("Song 1", "Artist"), right: ("Song 10", "Artist"), same: false),
    ]

    @Test(arguments: pairs)
    func normalisedTitleAndFirstArtistDecide(_ pair: Pair) {
        let left = SongIdentity(title: pair.left.title, artists: [pair.left.artist, "Second"])
        let right = SongIdentity(title: pair.right.title, artists: [pair.right.artist])
        #expect((left == right) == pair.same)
    }

    @Test func aTitleMadeOnlyOfBracketsIsKept() {
        #expect(SongIdentity(title: "(Untitled)", artists: ["A"]) != SongIdentity(title: "[Intro]", artists: ["A"]))
    }

    @Test func equalISRCsMatchWhateverTheTitles() {
        let left = Track(id: "1", uri: "s:1", name: "Free Bird", artists: ["A"], album: "", imageURL: nil, durationMs: 1, isrc: "usmc17300001")
        let right = Track(id: "2", uri: "s:2", name: "Freebird (Live)", artists: ["B"], album: "", imageURL: nil, durationMs: 1, isrc: "USMC17300001")
        #expect(SongIdentity.sameSong(left, right))
        let other = Track(id: "3", uri: "s:3", name: "Tuesday's Gone", artists: ["A"], album: "", imageURL: nil, durationMs: 1, isrc: "USMC17300002")
        #expect(!SongIdentity.sameSong(left, other))
    }

    @Test func aVersionOfAWaitingGuestSongIsTheR10RefusalWithThePlaceOfTheWaitingCopy() {
        let queue = Queue(entries: [
            QueueEntry(id: 1, track: track(1), addedAt: epoch, addedBy: "a"),
            QueueEntry(id: 2, track: track(2, name: "Free Bird", artist: "Lynyrd Skynyrd"), addedAt: epoch.addingTimeInterval(1), addedBy: "a"),
            QueueEntry(id: 3, track: track(3), addedAt: epoch.addingTimeInterval(2), addedBy: "a"),
        ], currentEntryId: 1)
        let version = track(9, name: "Free Bird - Remastered 2011", artist: "Lynyrd Skynyrd")
        #expect(queue.admission(for: version, blacklist: Blacklist(words: [])) == .refuse(.duplicate(existingUri: "demo:track:2", position: 1)))
    }

    @Test func aVersionOfTheSongPlayingNowMayBeQueued() {
        let queue = Queue(entries: [QueueEntry(id: 1, track: track(2, name: "Free Bird", artist: "L"), addedAt: epoch, addedBy: "a")],
                          currentEntryId: 1)
        #expect(queue.admission(for: track(9, name: "Free Bird (Live)", artist: "L"), blacklist: Blacklist(words: [])) == .insert)
    }

    @Test func aVersionOfAnAutofilledSongPromotesTheWaitingCopy() {
        let queue = Queue(entries: [QueueEntry(id: 4, track: track(2, name: "Free Bird", artist: "L"), addedAt: epoch, addedBy: "", autofilled: true)],
                          currentEntryId: nil)
        #expect(queue.admission(for: track(9, name: "Free Bird - Radio Edit", artist: "L"), blacklist: Blacklist(words: [])) == .promote(entryId: 4))
    }

    @Test func aRefillSkipsVersionsOfWaitingSongs() {
        let queue = Queue(entries: [QueueEntry(id: 1, track: track(2, name: "Free Bird", artist: "L"), addedAt: epoch, addedBy: "a")],
                          currentEntryId: nil)
        let chosen = Refill.choose(from: [track(9, name: "Free Bird (Remastered)", artist: "L"), track(10)], queue: queue,
                                   blacklist: Blacklist(words: []), recentlyPlayed: [])
        #expect(chosen.map(\.uri) == ["demo:track:10"])
    }
}
