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
    /// R11/R17a: counts a like or veto of `device` in the party, or throws `.rateLimited` without counting it.
    func admitLike(device: String, party: String, state: inout PartyState) throws
    /// The outermost transaction's last writes before its events are logged and it commits.
    func beforeCommit(state: inout PartyState) throws
    /// Whether a group commit runs its writes without a savepoint each first (`PartyState.withoutSavepoint`).
    var batchesWithoutSavepoints: Bool { get }
    /// The active party a write of it changes (`PartyState.activeParty` with `endsIfDue: false`).
    func activeParty(id: String, state: inout PartyState) throws -> Party
    /// R30: whether a ban of the party names the address (a new guest from it is refused).
    func isBanned(address: String, partyId: String, state: inout PartyState) throws -> Bool
    /// R17: `PartyStoring.setVote`, inside the like's write.
    func setVote(entryId: Int64, deviceId: String, wanted: Bool?, partyId: String, state: inout PartyState) throws -> (liked: Bool, changed: Bool)
    /// Admits a device nothing refuses as the party's guest; whether it was new.
    func admitGuest(deviceId: String, partyId: String, address: String, state: inout PartyState) throws -> Bool
}

/// Several writers: what the open transaction read of a party after locking its row, kept in step with its own likes
/// (no other process writes the party before the transaction ends). Valid while the store wrote nothing else since
/// (`writeVersion`); dropped when the transaction ends or a savepoint rolls back (`PartyState.transaction`).
struct LockedRead {
    var party: Party
    var queue: Queue?
    var bans: (adders: Set<String>, addresses: Set<String>)?
    var writeVersion: Int64
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

    /// In memory, under the state lock.
    func admitLike(device: String, party: String, state: inout PartyState) throws {
        try state.guards.limits.admitLike(device: device, party: party, at: state.now)
    }

    /// The activity is written later (`recordActivity`).
    func beforeCommit(state: inout PartyState) throws {}

    /// A savepoint is a call, not a round trip.
    var batchesWithoutSavepoints: Bool { false }

    func activeParty(id: String, state: inout PartyState) throws -> Party { try state.activeParty(id: id, endsIfDue: false) }

    func isBanned(address: String, partyId: String, state: inout PartyState) throws -> Bool {
        try state.store.isBanned(address: address, partyId: partyId)
    }

    func setVote(entryId: Int64, deviceId: String, wanted: Bool?, partyId: String, state: inout PartyState) throws -> (liked: Bool, changed: Bool) {
        try state.store.setVote(entryId: entryId, deviceId: deviceId, wanted: wanted)
    }

    func admitGuest(deviceId: String, partyId: String, address: String, state: inout PartyState) throws -> Bool {
        var isNew = false
        try state.keepingReads { isNew = try $0.store.admitGuest(deviceId: deviceId, partyId: partyId, address: address, at: $0.now) }
        return isNew
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

    /// Read after the party's row lock, as committed (another instance's like of the same song may have landed since
    /// any earlier read), once per transaction: the next like of the batch finds it in `lockedReads`.
    func queueForLike(of party: Party, state: inout PartyState) throws -> Queue {
        guard state.openTransactions > 0 else {
            try state.store.lockParty(id: party.id)
            return try state.store.queue(partyId: party.id, currentEntryId: state.store.party(id: party.id)?.playback.currentEntryId)
        }
        guard var read = try lockedRead(partyId: party.id, state: &state) else { throw PartyError.partyNotFound }
        if let queue = read.queue { return queue }
        var queue = try state.store.queue(partyId: party.id, currentEntryId: read.party.playback.currentEntryId, fair: read.party.settings.fairQueue)
        // The batch's likes so far are not written yet (`BatchedLikes`): their counts go on the queue as read.
        for (entryId, change) in state.batchedLikes[party.id]?.likeCountChanges ?? [:] where change != 0 {
            if let entry = queue.entries.first(where: { $0.id == entryId }) { queue.setLikeCount(entry.likeCount + change, ofEntry: entryId) }
        }
        read.queue = queue
        state.lockedReads[party.id] = read
        return queue
    }

    /// Another instance may commit between this commit and any version read now: the cache is not moved on. The
    /// transaction's own read of the locked party is (its row stays locked until the commit).
    func likeCounted(_ likeCount: Int, ofEntry entryId: Int64, partyId: String, state: inout PartyState) {
        guard var read = state.lockedReads[partyId], read.queue != nil else { return }
        read.queue?.setLikeCount(likeCount, ofEntry: entryId)
        read.writeVersion = state.store.writeVersion
        state.lockedReads[partyId] = read
    }

    /// The party's row locked and read once per transaction; nil: no such party.
    private func lockedRead(partyId: String, state: inout PartyState) throws -> LockedRead? {
        if let read = state.lockedReads[partyId], read.writeVersion == state.store.writeVersion { return read }
        guard let party = try state.store.lockedParty(id: partyId) else { return nil }
        let read = LockedRead(party: party, writeVersion: state.store.writeVersion)
        state.lockedReads[partyId] = read
        return read
    }

    /// The party's bans, read once per transaction after its row (a ban takes the row too, so none lands meanwhile).
    private func lockedBans(partyId: String, state: inout PartyState) throws -> (adders: Set<String>, addresses: Set<String>) {
        guard var read = try lockedRead(partyId: partyId, state: &state) else { return ([], []) }
        if let bans = read.bans { return bans }
        // A batch's likes read the bans with their own rows (`BatchedLikes`), the first time after the lock.
        let bans = state.batchedLikes[partyId] == nil && state.batchLikes[partyId] != nil
            ? try readBatchedLikes(partyId: partyId, state: &state).read.bans : try state.store.bans(partyId: partyId)
        read.bans = bans
        state.lockedReads[partyId] = read
        return bans
    }

    /// The party's row locked and read once per transaction.
    func activeParty(id: String, state: inout PartyState) throws -> Party {
        guard state.openTransactions > 0 else { return try state.activeParty(id: id, endsIfDue: false) }
        guard Identifiers.isWellFormedToken(id), let party = try lockedRead(partyId: id, state: &state)?.party, party.isActive,
              !party.isDueToAutoEnd(at: state.now) else {
            throw PartyError.partyNotFound
        }
        return party
    }

    /// A savepoint and its release are two round trips per write.
    var batchesWithoutSavepoints: Bool { true }

    func isBanned(address: String, partyId: String, state: inout PartyState) throws -> Bool {
        guard state.openTransactions > 0 else { return try state.store.isBanned(address: address, partyId: partyId) }
        return try lockedBans(partyId: partyId, state: &state).addresses.contains(address)
    }

    /// Written with the write that noted it (the others count it), one statement per party at the end of the
    /// transaction (`beforeCommit`): a group commit's likes wrote a row each, one round trip per like.
    func recordActivity(deviceId: String, partyId: String, state: inout PartyState) throws {
        guard state.openTransactions > 0 else {
            try state.store.recordActivity(deviceId: deviceId, partyId: partyId, at: state.now)
            return state.live[partyId, default: LiveParty()].noteActivityWritten(by: deviceId, at: state.now)
        }
        state.live[partyId, default: LiveParty()].notePendingActivity(by: deviceId, at: state.now)
    }

    func isBanned(adder: String, partyId: String, state: inout PartyState) throws -> Bool {
        guard state.openTransactions > 0 else { return try state.store.isBanned(adder: adder, partyId: partyId) }
        return try lockedBans(partyId: partyId, state: &state).adders.contains(adder)
    }

    /// R31: counted in the write's transaction on the store's connection (a round trip and a transaction of its own
    /// per like were most of what a like cost), after the party's row: every write of a party takes that lock first,
    /// so two instances never wait on each other's count and party in opposite orders. A like that fails later in its
    /// write stays counted, as one instance's count does, unless its batch runs again with savepoints.
    func admitLike(device: String, party: String, state: inout PartyState) throws {
        if state.openTransactions > 0 { try state.store.lockParty(id: party) }
        if var likes = try batchedLikes(partyId: party, device: device, state: &state) {
            defer { state.batchedLikes[party] = likes }
            if let retry = likes.admit(GuestLimits.likes, key: GuestLimits.key(device: device, party: party), at: state.now) {
                throw PartyError.rateLimited(retryAfterSeconds: retry)
            }
            return
        }
        if let retry = try state.store.admit(1, GuestLimits.likes, key: GuestLimits.key(device: device, party: party), at: state.now) {
            throw PartyError.rateLimited(retryAfterSeconds: retry)
        }
    }

    /// The batch's likes (`BatchedLikes`), then the activity the transaction's writes noted. Likes whose rows were
    /// not as read run again, a write at a time (`SavepointNeeded`).
    func beforeCommit(state: inout PartyState) throws {
        for partyId in state.batchedLikes.keys.sorted() {
            guard var write = state.batchedLikes[partyId]?.write else { continue }
            // The party's activity goes with its likes (the rest below): as `PartyState.writePendingActivity`.
            if let pending = state.live[partyId]?.takePendingActivity(), !pending.isEmpty {
                state.effects.flushedActivity.append((partyId, pending))
                write.activity = pending
            }
            guard !write.isEmpty else { continue }
            do {
                guard try state.store.writeLikes(write, partyId: partyId, rule: GuestLimits.likes) else { throw SavepointNeeded() }
            } catch {
                throw SavepointNeeded()
            }
        }
        state.batchedLikes.removeAll()
        try state.writePendingActivity()
    }

    /// The batch's likes of the party, read once for all its likes' devices when the first of them needs them (the
    /// party's row locked first); nil outside a batch's first pass, or for a device that is not one of its likes'.
    private func batchedLikes(partyId: String, device: String, state: inout PartyState) throws -> BatchedLikes? {
        if let likes = state.batchedLikes[partyId] { return likes.devices.contains(device) ? likes : nil }
        guard state.openTransactions > 0, state.batchLikes[partyId]?.contains(where: { $0.deviceId == device }) == true else { return nil }
        return try readBatchedLikes(partyId: partyId, state: &state)
    }

    private func readBatchedLikes(partyId: String, state: inout PartyState) throws -> BatchedLikes {
        let batch = state.batchLikes[partyId] ?? []
        try state.store.lockParty(id: partyId)
        let read = try state.store.readForLikes(partyId: partyId, likes: batch, rule: GuestLimits.likes, at: state.now)
        let likes = BatchedLikes(devices: Set(batch.map(\.deviceId)), read: read)
        state.batchedLikes[partyId] = likes
        return likes
    }

    func setVote(entryId: Int64, deviceId: String, wanted: Bool?, partyId: String, state: inout PartyState) throws -> (liked: Bool, changed: Bool) {
        guard var likes = try batchedLikes(partyId: partyId, device: deviceId, state: &state) else {
            return try state.store.setVote(entryId: entryId, deviceId: deviceId, wanted: wanted)
        }
        guard let vote = likes.setVote(entryId: entryId, deviceId: deviceId, wanted: wanted) else {
            return try state.store.setVote(entryId: entryId, deviceId: deviceId, wanted: wanted)
        }
        state.batchedLikes[partyId] = likes
        return vote
    }

    func admitGuest(deviceId: String, partyId: String, address: String, state: inout PartyState) throws -> Bool {
        guard var likes = try batchedLikes(partyId: partyId, device: deviceId, state: &state) else {
            var isNew = false
            try state.keepingReads { isNew = try $0.store.admitGuest(deviceId: deviceId, partyId: partyId, address: address, at: $0.now) }
            return isNew
        }
        defer { state.batchedLikes[partyId] = likes }
        return likes.admitGuest(deviceId: deviceId, address: address, at: state.now)
    }
}
