import Foundation
import PartyCore

/// What an add did (R16, R35).
struct AddOutcome: Sendable {
    /// The party was idle with a monitor connected and a song entered: playback starts by itself (R16).
    var startsPlayback: Bool
    /// R35: the songs of this add that wait for the host's approval.
    var pendingIds: [Int64]
}

extension PartyState {
    /// R35: the party's songs waiting for approval when this adder's adds wait too; nil when they enter at once.
    /// Read in the open transaction (the party's row is locked on a shared store).
    func songsAwaitingApproval(from adder: String, partyId: String) throws -> [PendingSong]? {
        guard let mode = try store.party(id: partyId)?.settings.approval, mode != .off else { return nil }
        let trusted = mode.asksWhetherTrusted ? try store.isApprovedAdder(adder, partyId: partyId) : false
        guard mode.holds(trusted: trusted) else { return nil }
        return try store.pendingSongs(partyId: partyId, adder: nil)
    }

    /// R35: `track` waits for the host; R10 among the waiting songs (the same song twice would be decided twice).
    mutating func hold(_ track: Track, adder: String, partyId: String, among waiting: [PendingSong]) throws -> PendingSong {
        if waiting.copy(of: track) != nil { throw PartyError.alreadyPending }
        let id = try store.insertPending(partyId: partyId, track: track, requestedAt: now, adder: adder)
        publish(.pendingUpdated(.added, pendingId: id, count: waiting.count + 1), partyId: partyId)
        return PendingSong(id: id, track: track, requestedAt: now, adder: adder)
    }

    /// R35: the host lets a waiting song in. It enters by R9 as if added now (R12 was applied at the add); the guest
    /// counts as approved from now on (`new-guests`). Returns whether the party was idle with a monitor connected.
    mutating func approve(pendingId: Int64, party: Party) throws -> Bool {
        let now = self.now
        return try transaction { state in
            let (playback, queue) = try state.storedPlayback(partyId: party.id)
            guard let song = try state.store.pendingSong(id: pendingId, partyId: party.id) else { throw PartyError.notPending }
            switch queue.admission(approving: song) {
            case .refuse(let error):
                throw error
            case .promote(let entryId):
                try state.store.promote(entryId: entryId, addedBy: song.adder, at: now)
            case .insert:
                try state.store.insertEntry(partyId: party.id, track: song.track, addedAt: now, addedBy: song.adder, autofilled: false)
            }
            try state.store.deletePending(id: pendingId)
            try state.store.approveAdder(song.adder, partyId: party.id)
            state.publish(.pendingUpdated(.approved, pendingId: pendingId, count: try state.store.pendingCount(partyId: party.id)),
                          partyId: party.id)
            state.publish(.queueUpdated(.add), partyId: party.id)
            return playback.isIdle && state.deviceActive(partyId: party.id)
        }
    }

    /// R35: the host turns a waiting song away; the guest's page says so.
    mutating func decline(pendingId: Int64, party: Party) throws {
        try transaction { state in
            _ = try state.storedPlayback(partyId: party.id)
            guard try state.store.pendingSong(id: pendingId, partyId: party.id) != nil else { throw PartyError.notPending }
            try state.store.deletePending(id: pendingId)
            state.publish(.pendingUpdated(.declined, pendingId: pendingId, count: try state.store.pendingCount(partyId: party.id)),
                          partyId: party.id)
        }
    }

    /// R30 with R35: a banned guest's waiting songs leave with its queued ones. Runs in the ban's transaction.
    mutating func dropPendingSongs(of adder: String, partyId: String) throws {
        let songs = try store.pendingSongs(partyId: partyId, adder: adder)
        for song in songs { try store.deletePending(id: song.id) }
        guard !songs.isEmpty else { return }
        let count = try store.pendingCount(partyId: partyId)
        for song in songs { publish(.pendingUpdated(.removed, pendingId: song.id, count: count), partyId: partyId) }
    }
}
