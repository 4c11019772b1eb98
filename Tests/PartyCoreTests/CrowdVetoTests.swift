import Foundation
import Testing
@testable import PartyCore

@Suite("R17a crowd veto, R30 ban")
struct CrowdVetoTests {
    @Test func neverFewerThanTwoVetoes() {
        #expect(CrowdVeto.needed(vetoShare: 0.4, voters: 0) == 2)
        #expect(CrowdVeto.needed(vetoShare: 0.4, voters: 2) == 2)
        #expect(CrowdVeto.needed(vetoShare: 0.1, voters: 9) == 2)
    }

    @Test func theShareOfTheVotersRoundedUp() {
        #expect(CrowdVeto.needed(vetoShare: 0.4, voters: 8) == 4)
        #expect(CrowdVeto.needed(vetoShare: 0.4, voters: 10) == 4)
        #expect(CrowdVeto.needed(vetoShare: 0.4, voters: 11) == 5)
        #expect(CrowdVeto.needed(vetoShare: 1, voters: 20) == 20)
    }

    @Test func aShareOfAWholeNumberOfGuestsIsNotRoundedPastIt() {
        // 0.7 × 10 is 7.000000000000001 in binary floating point.
        #expect(CrowdVeto.needed(vetoShare: 0.7, voters: 10) == 7)
        #expect(CrowdVeto.needed(vetoShare: 0.3, voters: 30) == 9)
    }

    @Test func aShareOfZeroIsOff() {
        #expect(CrowdVeto.needed(vetoShare: 0, voters: 50) == nil)
        #expect(CrowdVeto.needed(for: entry(1, track: 1), vetoShare: 0, activeGuests: 50) == nil)
    }

    @Test func aGuestsSongIsVotedOnByTheOthers() {
        var song = entry(1, track: 1)
        song.addedBy = "A"
        let filled = entry(2, track: 2, autofilled: true)
        #expect(CrowdVeto.voters(of: song, activeGuests: 3) == 2)
        #expect(CrowdVeto.voters(of: filled, activeGuests: 3) == 3)
        // A party of three: the two others skip the third one's song.
        #expect(CrowdVeto.needed(for: song, vetoShare: 0.4, activeGuests: 3) == 2)
        // Four: two of the three others. Twenty: 8 of 19 (⌈0.4 × 19⌉).
        #expect(CrowdVeto.needed(for: song, vetoShare: 0.4, activeGuests: 4) == 2)
        #expect(CrowdVeto.needed(for: song, vetoShare: 0.4, activeGuests: 20) == 8)
        #expect(CrowdVeto.needed(for: filled, vetoShare: 0.4, activeGuests: 20) == 8)
    }

    @Test func aSongOnlyOneGuestCouldVetoOffersNoVeto() {
        var song = entry(1, track: 1)
        song.addedBy = "A"
        #expect(CrowdVeto.needed(for: song, vetoShare: 0.4, activeGuests: 2) == nil, "one other guest: no veto")
        #expect(CrowdVeto.needed(for: entry(2, track: 2, autofilled: true), vetoShare: 0.4, activeGuests: 1) == nil)
        #expect(CrowdVeto.needed(for: entry(2, track: 2, autofilled: true), vetoShare: 0.4, activeGuests: 2) == 2)
    }

    @Test func activeMeansWithinTheLastTenMinutes() {
        #expect(CrowdVeto.activeSince(epoch) == epoch.addingTimeInterval(-600))
    }

    @Test func theThresholdSkips() {
        #expect(!CrowdVeto.skips(vetoCount: 1, needed: 2))
        #expect(CrowdVeto.skips(vetoCount: 2, needed: 2))
    }

    @Test func aCrowdSkipAdvancesOnlyWhileItsSongIsCurrent() {
        var playback = Playback()
        playback.play(entryId: 7, at: epoch)
        #expect(playback.accepts(.crowdVeto(entryId: 7), at: epoch), "as a host next")
        playback.play(entryId: 8, at: epoch)
        #expect(!playback.accepts(.crowdVeto(entryId: 7), at: epoch), "a second veto past the threshold skips nothing more")
    }

    @Test func nobodyVetoesTheirOwnSong() {
        let own = entry(1, track: 1)
        #expect(!own.mayBeVetoed(by: "device"))
        #expect(own.mayBeVetoed(by: "other"))
    }

    @Test func aBanTakesTheAddersWaitingSongsNotThePlayingOne() {
        var first = entry(1, track: 1), second = entry(2, track: 2, at: 1), other = entry(3, track: 3, at: 2)
        first.addedBy = "A"; second.addedBy = "A"; other.addedBy = "B"
        let filled = entry(4, track: 4, autofilled: true)
        let queue = Queue(entries: [first, second, other, filled], currentEntryId: 1)
        #expect(queue.waitingEntries(addedBy: "A").map(\.id) == [2])
        #expect(first.guestAdder == "A")
        #expect(filled.guestAdder == nil)
    }
}
