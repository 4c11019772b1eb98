import Foundation
import PartyCore

/// Who writes the database, and so what this process may take for granted. One instance alone (`SoleWriter`, SQLite)
/// is the only writer: what it read and cached stays true until it writes, and work that no other reader waits for
/// can wait. Several instances (`SeveralWriters`, PostgreSQL) take turns on a party's row (`PartyStoring.lockParty`,
/// taken first by every write of the party, and by a group commit in the order of the parties), read what another
/// committed, and write at once what the others count.
protocol PartyWriters: Sendable {
    /// A group commit's writes in the order they run.
    func ordered(_ jobs: [BatchedWrite]) -> [BatchedWrite]
    /// Whether the read cache is current after a write of rows it does not hold (`PartyState.keepingReads`).
    func cacheStaysCurrent(_ state: PartyState) -> Bool
    /// Drops what the read cache holds of the party that another process changed since (after `readCache.align`).
    func checkOthersWrites(partyId: String, state: inout PartyState) throws
    /// R17: the queue a like reads, inside its write's transaction.
    func queueForLike(of party: Party, state: inout PartyState) throws -> Queue
    /// R17: a like changed one count (`entryId`'s, now `likeCount`) and nothing else the cache holds.
    func likeCounted(_ likeCount: Int, ofEntry entryId: Int64, partyId: String, state: inout PartyState)
    /// R17a: notes the device's activity (a write now, or with the party's next flush).
    func recordActivity(deviceId: String, partyId: String, state: inout PartyState) throws
    /// R30: whether the party banned `adder`.
    func isBanned(adder: String, partyId: String, state: inout PartyState) throws -> Bool
}

/// One instance alone: its reads are the committed state, its caches the truth.
struct SoleWriter: PartyWriters {
    /// As they came: no other process takes a party's row.
    func ordered(_ jobs: [BatchedWrite]) -> [BatchedWrite] { jobs }

    func cacheStaysCurrent(_ state: PartyState) -> Bool { state.readCache.alignedVersion == state.store.writeVersion }

    /// The write version says it all.
    func checkOthersWrites(partyId: String, state: inout PartyState) throws {}

    /// The cached queue is the committed one.
    func queueForLike(of party: Party, state: inout PartyState) throws -> Queue { try state.queue(of: party) }

    /// The cache moves to the new write version with that count changed (in place), instead of reading the whole
    /// queue again for the next like (which, in a group commit, follows at once). Appending the event moved the
    /// version on too (the log is no part of them).
    func likeCounted(_ likeCount: Int, ofEntry entryId: Int64, partyId: String, state: inout PartyState) {
        state.readCache.align(to: state.store.writeVersion, changingLikeCount: likeCount, ofEntry: entryId, partyId: partyId)
    }

    /// Written later, with others pending (`flushActivity`): a like storm of new phones wrote a row in a different
    /// page of the table per like, the largest part of each group commit.
    func recordActivity(deviceId: String, partyId: String, state: inout PartyState) throws {
        state.live[partyId, default: LiveParty()].notePendingActivity(by: deviceId, at: state.now)
        if state.live[partyId]!.pendingActivity.count >= LiveParty.activityDevices { try state.flushActivity(partyId: partyId) }
    }

    /// The party's banned adders, read once and dropped when a ban or a lift changes them (every like asked the
    /// database).
    func isBanned(adder: String, partyId: String, state: inout PartyState) throws -> Bool {
        if let banned = state.live[partyId]?.bannedAdders { return banned.contains(adder) }
        let banned = try state.store.bannedAdders(partyId: partyId)
        state.live[partyId, default: LiveParty()].bannedAdders = banned
        return banned.contains(adder)
    }
}

/// Several instances on one PostgreSQL database: another may commit between any two reads of this one.
struct SeveralWriters: PartyWriters {
    /// By the party each locks, then as they came (writes that lock none first): two instances' batches that lock
    /// the same parties in opposite orders would deadlock, and PostgreSQL would fail one write after a second.
    func ordered(_ jobs: [BatchedWrite]) -> [BatchedWrite] {
        jobs.enumerated().sorted { ($0.element.partyId ?? "", $0.offset) < ($1.element.partyId ?? "", $1.offset) }.map(\.element)
    }

    /// The write version says nothing of the others' writes.
    func cacheStaysCurrent(_ state: PartyState) -> Bool { false }

    /// Any committed write of the party by another process, checked once per lock hold: a read that begins after
    /// another instance acknowledged a write sees it.
    func checkOthersWrites(partyId: String, state: inout PartyState) throws {
        guard !state.readCache.isChecked(partyId: partyId) else { return }
        state.readCache.align(partyId: partyId, to: try state.store.partyVersion(id: partyId) ?? -1)
    }

    /// Read after the party's row lock, as committed: another instance's like of the same song may have landed since
    /// any earlier read.
    func queueForLike(of party: Party, state: inout PartyState) throws -> Queue {
        try state.store.lockParty(id: party.id)
        return try state.store.queue(partyId: party.id, currentEntryId: state.store.party(id: party.id)?.playback.currentEntryId)
    }

    /// Another instance may commit between this commit and any version read now: the cache is not moved on.
    func likeCounted(_ likeCount: Int, ofEntry entryId: Int64, partyId: String, state: inout PartyState) {}

    /// Written now: the others count it.
    func recordActivity(deviceId: String, partyId: String, state: inout PartyState) throws {
        try state.store.recordActivity(deviceId: deviceId, partyId: partyId, at: state.now)
        state.live[partyId, default: LiveParty()].noteActivityWritten(by: deviceId, at: state.now)
    }

    func isBanned(adder: String, partyId: String, state: inout PartyState) throws -> Bool {
        try state.store.isBanned(adder: adder, partyId: partyId)
    }
}
