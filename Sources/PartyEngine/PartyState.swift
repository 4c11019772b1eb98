import Foundation
import PartyCore
import PartyStore

/// Everything the party service changes, split by who must share it: the store (its connection's one
/// serial owner), the guards (limits and pairings: shared through the database when several instances run) and
/// the live per-party state; and the read cache and the random source. Reached only through `PartyService`'s `Mutex`, never shared (like GRDB's
/// `Database`, it is explicitly not `Sendable`). Methods record the events they cause in `effects`; the
/// service performs them once the lock is released.
struct PartyState {
    let store: any PartyStoring
    let clock: any PartyClock
    var random: AnyRandomNumberGenerator
    /// Open streams of a party's player, as the event hub counts them: monitor streams, plus the streams from the
    /// address the player registered from (the original web player has no monitor token).
    let playerStreams: @Sendable (_ partyId: String, _ address: String?) -> Int
    /// What lives only while a party runs (its player, stall clock, SDK device, retired monitor tokens), dropped in
    /// one line when it ends.
    var live: [String: LiveParty] = [:]
    var presence = Presence()
    var readCache = ReadCache()
    /// Every limit, and the TV pairings (shared through the database when several instances run).
    var guards: Guards
    /// Where the parties' players are known: here, or (several instances) in every instance's records.
    let players: any PlayerPresence
    /// How events reach the streams other instances hold (nowhere when alone).
    let channel: any EventChannel
    /// Whether other processes write the database too.
    let writers: any PartyWriters
    /// The timer shards this instance owns; nil: every party's (alone, or not told yet).
    var timerShards: [Int]?
    var effects = Effects()
    /// Several writers: what the open transaction read of each party after locking its row (`LockedRead`).
    var lockedReads: [String: LockedRead] = [:]
    /// Several writers, a group commit's first pass: its likes per party (`BatchedWrite.like`),
    /// and the likes of each party gathered so far (`BatchedLikes`), written before the commit. Emptied when the
    /// outermost transaction ends, whichever way.
    var batchLikes: [String: [(deviceId: String, uri: String)]] = [:]
    var batchedLikes: [String: BatchedLikes] = [:]
    /// `transaction`s open now (they nest): a logged event recorded inside one is appended before it commits.
    private(set) var openTransactions = 0

    /// What a change caused, done after the lock: events to send, streams to close, Spotify players to drive.
    struct Effects {
        var events: [ServerEvent] = []
        /// Parties whose monitor streams end (their TV was replaced: it reconnects as a guest and learns it).
        var closedMonitorStreams: [String] = []
        var playersToDrive: [String] = []
        /// Guests' activity written from pending in this lock hold (`flushActivity`): pending again if the
        /// transaction that wrote it rolls back.
        var flushedActivity: [(partyId: String, rows: [(deviceId: String, at: Date)])] = []
        /// Guests admitted in this lock hold (`admitGuest`): forgotten again if the transaction that wrote them rolls back.
        var admittedGuests: [(partyId: String, deviceId: String)] = []

        /// How long each list was when a transaction began. Inside one they only grow (numbering a logged event
        /// changes one recorded inside), so a rollback cuts them back to these lengths. A copy of the lists instead
        /// copied every event of a group commit's batch for each like that appended one.
        struct Mark { let events, closedMonitorStreams, playersToDrive, flushedActivity, admittedGuests: Int }

        var mark: Mark {
            Mark(events: events.count, closedMonitorStreams: closedMonitorStreams.count, playersToDrive: playersToDrive.count,
                 flushedActivity: flushedActivity.count, admittedGuests: admittedGuests.count)
        }

        mutating func rollBack(to mark: Mark) {
            events.removeSubrange(mark.events...)
            closedMonitorStreams.removeSubrange(mark.closedMonitorStreams...)
            playersToDrive.removeSubrange(mark.playersToDrive...)
            flushedActivity.removeSubrange(mark.flushedActivity...)
            admittedGuests.removeSubrange(mark.admittedGuests...)
        }
    }

    init(store: any PartyStoring, clock: any PartyClock, random: any RandomNumberGenerator, coordination: Coordination = .alone,
         playerStreams: @escaping @Sendable (String, String?) -> Int) {
        self.store = store
        guards = Guards(limits: coordination.limits, pairings: coordination.pairings)
        players = coordination.players
        channel = coordination.channel
        writers = coordination.writers
        self.clock = clock
        self.random = AnyRandomNumberGenerator(base: random)
        self.playerStreams = playerStreams
    }

    var now: Date { clock.now() }

    /// Open streams of the party's player (monitor streams, or streams from its registered address).
    func monitorStreams(_ partyId: String) -> Int { playerStreams(partyId, live[partyId]?.deviceAddress) }

    mutating func drivePlayer(partyId: String) { effects.playersToDrive.append(partyId) }

    mutating func closeMonitorStreams(partyId: String) { effects.closedMonitorStreams.append(partyId) }

    mutating func takeEffects() -> Effects {
        defer { effects = Effects() }
        return effects
    }

    /// Runs `body` in one database transaction; the outermost one's last statements append the events recorded
    /// inside to their party's log. When it throws, its writes roll back and so do the effects it recorded:
    /// nothing is announced, or logged, that did not happen. Effects recorded before it stay; the read cache is emptied if
    /// anything was written, as it may hold what was read inside (the write version does not move back with a rollback).
    mutating func transaction<T>(_ body: (inout PartyState) throws -> T) throws -> T {
        let before = effects.mark
        let writtenBefore = store.writeVersion
        openTransactions += 1
        defer {
            openTransactions -= 1
            if openTransactions == 0 {
                lockedReads.removeAll()
                batchLikes.removeAll()
                batchedLikes.removeAll()
            }
        }
        do {
            return try store.transaction {
                let result = try body(&self)
                // The outermost transaction appends what every nested one recorded (a group commit: one append per
                // party and batch); a nested one that throws took its events back with its effects.
                if openTransactions == 1 {
                    let writers = self.writers
                    try writers.beforeCommit(state: &self)
                    try keepingReads { try $0.appendLoggedEvents(since: before.events) }
                    try ringAtCommit(since: before.events)
                }
                return result
            }
        } catch {
            for flushed in effects.flushedActivity.dropFirst(before.flushedActivity) {
                live[flushed.partyId]?.restorePendingActivity(flushed.rows)
            }
            for admitted in effects.admittedGuests.dropFirst(before.admittedGuests) { live[admitted.partyId]?.forgetGuest(admitted.deviceId) }
            effects.rollBack(to: before)
            // A savepoint rolled back: what was read under its locks, or changed by it, may be gone.
            lockedReads.removeAll()
            // What was read inside may be gone (the write version does not move back with a rollback), and a shared
            // store's party versions roll back too, and the next write hands them out again. A transaction that wrote
            // nothing (a like over its limit, of a song not queued) read only what is committed: the cache stays
            // (in a like storm each refused like emptied it, and every guest's next read rendered anew).
            if store.writeVersion != writtenBefore { readCache.clear() }
            throw error
        }
    }

    /// One write of a group commit in the batch's transaction without a savepoint of its own (several writers, where a
    /// savepoint and its release are two round trips). A write that throws having written nothing (a refusal: over
    /// a limit, a song not queued) fails alone, its effects taken back. One that throws after it wrote, or whose
    /// statement failed, cannot be taken back alone: `SavepointNeeded` rolls the batch back, and it runs again with
    /// a savepoint per write.
    mutating func withoutSavepoint<T>(_ body: (inout PartyState) throws -> T) throws -> T {
        let before = effects.mark
        let writtenBefore = store.writeVersion
        do {
            return try body(&self)
        } catch {
            for flushed in effects.flushedActivity.dropFirst(before.flushedActivity) {
                live[flushed.partyId]?.restorePendingActivity(flushed.rows)
            }
            for admitted in effects.admittedGuests.dropFirst(before.admittedGuests) { live[admitted.partyId]?.forgetGuest(admitted.deviceId) }
            effects.rollBack(to: before)
            if store.writeVersion != writtenBefore || store.transactionFailed { throw SavepointNeeded() }
            throw error
        }
    }

    /// Runs `write`, whose rows are no part of what the read cache holds (the event log, guests' activity): a cache
    /// that was current stays current (`PartyWriters.cacheStaysCurrent`).
    mutating func keepingReads(_ write: (inout PartyState) throws -> Void) throws {
        let current = writers.cacheStaysCurrent(self)
        let before = store.writeVersion
        try write(&self)
        if current { readCache.keep(at: store.writeVersion) }
        let after = store.writeVersion
        guard after != before else { return }
        for partyId in Array(lockedReads.keys) where lockedReads[partyId]?.writeVersion == before { lockedReads[partyId]?.writeVersion = after }
    }

    mutating func token() -> String { Identifiers.token(using: &random) }

    /// R3/R5/R6: the active party with this id, else `.partyNotFound`. Ends it first when it is due (R6).
    /// `endsIfDue: false` inside a write that fails with the answer: the end would roll back with it (a group commit's
    /// like); the next other request, or the upkeep within a minute, ends the party.
    mutating func activeParty(id: String, endsIfDue: Bool = true) throws -> Party {
        guard Identifiers.isWellFormedToken(id), let party = try cachedParty(id: id), party.isActive else {
            throw PartyError.partyNotFound
        }
        if party.isDueToAutoEnd(at: now) {
            if endsIfDue { try end(party) }
            throw PartyError.partyNotFound
        }
        return party
    }

    /// The active party a write of it changes, inside that write (`PartyWriters.activeParty`).
    mutating func partyToWrite(id: String) throws -> Party {
        let writers = self.writers
        return try writers.activeParty(id: id, state: &self)
    }

    /// Drops cached reads another write made stale: any write of this process (its store's `writeVersion`), and
    /// any committed write of the party by another (`PartyWriters.checkOthersWrites`).
    mutating func alignCache(partyId: String) throws {
        readCache.align(to: store.writeVersion)
        let writers = self.writers
        try writers.checkOthersWrites(partyId: partyId, state: &self)
    }

    mutating func cachedParty(id: String) throws -> Party? {
        try alignCache(partyId: id)
        if let cached = readCache.parties[id] { return cached }
        let party = try store.party(id: id)
        readCache.remember(party: party, id: id)
        return party
    }

    mutating func queue(of party: Party) throws -> Queue {
        try alignCache(partyId: party.id)
        if let cached = readCache.queues[party.id] { return cached }
        let current = try cachedParty(id: party.id)?.playback.currentEntryId
        let queue = try store.queue(partyId: party.id, currentEntryId: current)
        readCache.remember(queue: queue, partyId: party.id)
        return queue
    }

    /// The queue and its R9/R9b order, ordered once per write version (every device's answer shares it).
    mutating func orderedQueue(of party: Party) throws -> (Queue, [QueueEntry]) {
        let queue = try queue(of: party)
        if let ordered = readCache.ordered[party.id] { return (queue, ordered) }
        let ordered = queue.ordered()
        readCache.remember(ordered: ordered, partyId: party.id)
        return (queue, ordered)
    }

    /// R18: the entries `deviceId` liked.
    mutating func entriesLiked(by deviceId: String, party: Party) throws -> Set<Int64> {
        try alignCache(partyId: party.id)
        let key = party.id + "|" + deviceId
        if let cached = readCache.liked[key] { return cached }
        let entries = try store.entriesLiked(by: deviceId, partyId: party.id)
        readCache.remember(liked: entries, key: key)
        return entries
    }

    /// The party's stored playback state and queue, read together. An ended party has none: a request that
    /// found the party active before it ended must not write to it.
    func storedPlayback(partyId: String) throws -> (Playback, Queue) {
        // Inside a transaction the party's row stays locked until commit: another instance's read-modify-write of
        // it waits for this one (no lost update, no double advance).
        if openTransactions > 0 { try store.lockParty(id: partyId) }
        guard let party = try store.party(id: partyId), party.isActive else { throw PartyError.partyNotFound }
        var playback = party.playback
        let queue = try store.queue(partyId: partyId, currentEntryId: playback.currentEntryId)
        // A current entry that no longer exists (a crash between two writes of an older version) is no
        // song at all: forget it instead of "playing" silence.
        if playback.currentEntryId != nil, queue.current == nil { playback.stop() }
        return (playback, queue)
    }

    /// R5: queue emptied, tokens deleted, party ended, `party-ended` sent, streams closed.
    mutating func end(_ party: Party) throws {
        try transaction { state in
            // R33: the song playing at the end was heard too.
            if let stored = try state.store.party(id: party.id), stored.isActive, stored.settings.history {
                let (playback, queue) = try state.storedPlayback(partyId: party.id)
                if let playing = queue.current { try state.remember(playing, .partyEnded, playback: playback, partyId: party.id) }
            }
            try state.store.end(partyId: party.id, at: state.now)
            state.publish(.partyEnded, partyId: party.id)
        }
        presence.forget(partyId: party.id)
        live[party.id] = nil
        do { try store.forgetProven(scope: party.id) } catch { Log.error("proven clients of ended \(party.id) not forgotten: \(error)") }
        do { try players.forget(partyId: party.id) } catch { Log.error("presence of ended \(party.id) not forgotten: \(error)") }
        // Its streams end once `party-ended` went out to them (`EventHub`), after every event before it.
    }

    /// R6: ends overdue parties and purges long-ended ones, and drops what it kept in memory for parties another
    /// instance ended. The event logs are pruned apart, in steps (`PartyService.pruneEventLog`).
    mutating func expireParties() throws {
        let parties = try store.activeParties()
        for party in parties where party.isDueToAutoEnd(at: now) { try end(party) }
        // What this instance keeps for a party that ended without it (another instance ended it) goes too; `end`
        // dropped what it kept for the ones it just ended.
        let active = Set(parties.map(\.id))
        live = live.filter { active.contains($0.key) }
        _ = try store.purge(endedBefore: now.addingTimeInterval(-Party.purgeAfterEnd))
        try flushActivity()
        try store.pruneActivity(before: CrowdVeto.activeSince(now))
        guards.limits.prune(at: now)
        try players.prune(before: now.addingTimeInterval(-Presence.heartbeatWindow * 4), at: now)
    }
}

@available(*, unavailable)
extension PartyState: Sendable {}

/// Lets the injected generator (any type) feed PartyCore's generic functions.
struct AnyRandomNumberGenerator: RandomNumberGenerator {
    var base: any RandomNumberGenerator
    mutating func next() -> UInt64 { base.next() }
}
