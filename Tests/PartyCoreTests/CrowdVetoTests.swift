import Foundation
import Testing
@testable import PartyCore

@Suite("R17a crowd veto, R30 ban")
struct CrowdVetoTests {
    @Test func neverFewerThanThreeVetoes() {
        #expect(CrowdVeto.needed(vetoShare: 0.4, activeGuests: 0) == 3)
        #expect(CrowdVeto.needed(vetoShare: 0.4, activeGuests: 3) == 3)
        #expect(CrowdVeto.needed(vetoShare: 1, activeGuests: 2) == 3)
    }

    @Test func theShareOfActiveGuestsRoundedUp() {
        #expect(CrowdVeto.needed(vetoShare: 0.4, activeGuests: 8) == 4)
        #expect(CrowdVeto.needed(vetoShare: 0.4, activeGuests: 10) == 4)
        #expect(CrowdVeto.needed(vetoShare: 0.4, activeGuests: 11) == 5)
        #expect(CrowdVeto.needed(vetoShare: 1, activeGuests: 20) == 20)
    }

    @Test func aShareOfAWholeNumberOfGuestsIsNotRoundedPastIt() {
        // 0.7 × 10 is 7.000000000000001 in binary floating point.
        #expect(CrowdVeto.needed(vetoShare: 0.7, activeGuests: 10) == 7)
        #expect(CrowdVeto.needed(vetoShare: 0.3, activeGuests: 30) == 9)
    }

    @Test func aShareOfZeroIsOff() {
        #expect(CrowdVeto.needed(vetoShare: 0, activeGuests: 50) == nil)
    }

    @Test func activeMeansWithinTheLastTenMinutes() {
        #expect(CrowdVeto.activeSince(epoch) == epoch.addingTimeInterval(-600))
    }

    @Test func theThresholdSkips() {
        #expect(!CrowdVeto.skips(vetoCount: 2, needed: 3))
        #expect(CrowdVeto.skips(vetoCount: 3, needed: 3))
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
