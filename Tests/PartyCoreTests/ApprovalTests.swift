import Foundation
import PartyCore
import Testing

/// R35: whose adds wait, R10 among the waiting songs, and how an approved song joins the queue.
@Suite("R35 approval")
struct ApprovalTests {
    @Test func offLetsEveryAddInAllHoldsEveryAddNewGuestsHoldsUntilOneWasApproved() {
        #expect(!ApprovalMode.off.holds(trusted: false) && !ApprovalMode.off.holds(trusted: true))
        #expect(ApprovalMode.all.holds(trusted: false) && ApprovalMode.all.holds(trusted: true))
        #expect(ApprovalMode.newGuests.holds(trusted: false) && !ApprovalMode.newGuests.holds(trusted: true))
        #expect(ApprovalMode.allCases.map(\.rawValue) == ["off", "new-guests", "all"])
        #expect(PartySettings.apiDefault.approval == .off, "the older clients' party is today's")
    }

    @Test func aSongWaitsForApprovalOnceInAnyOfItsVersions() {
        let waiting = [PendingSong(id: 7, track: track(1, name: "Free Bird"), requestedAt: epoch, adder: "a")]
        #expect(waiting.copy(of: track(1))?.id == 7, "the same uri")
        #expect(waiting.copy(of: track(2, name: "Free Bird (Remastered 2011)"))?.id == 7, "another version (R10a)")
        #expect(waiting.copy(of: track(3, name: "Simple Man")) == nil)
    }

    @Test func anApprovedSongEntersAsIfAddedWhenApprovedAndTheBlacklistWasTheAddsToApply() {
        let song = PendingSong(id: 7, track: track(5, name: "Nope Song"), requestedAt: epoch, adder: "guest")
        let approvedAt = epoch.addingTimeInterval(60)
        let queue = Queue(entries: [entry(1, track: 1, at: 30), song.entry(id: 2, approvedAt: approvedAt)], currentEntryId: nil)
        #expect(queue.waiting.map(\.id) == [1, 2], "added when approved: after a song added meanwhile (R9)")
        #expect(song.entry(id: 2, approvedAt: approvedAt).addedBy == "guest")

        let empty = Queue(entries: [], currentEntryId: nil)
        #expect(empty.admission(for: song.track, blacklist: Blacklist(words: ["nope"])) == .refuse(.blacklisted), "R12 at the add")
        #expect(empty.admission(approving: song) == .insert, "the host has seen the song")
        let copy = Queue(entries: [entry(3, track: 5)], currentEntryId: nil)
        #expect(copy.admission(approving: song) == .refuse(.duplicate(existingUri: "demo:track:5", position: 1)),
                "a copy that waits meanwhile refuses it (R10)")
        let filled = Queue(entries: [entry(3, track: 5, autofilled: true)], currentEntryId: nil)
        #expect(filled.admission(approving: song) == .promote(entryId: 3))
    }
}
