import Foundation
import PartyCore

/// R17a: what a veto toggle did. `skipsEntry`: the current entry the crowd skipped; the service advances past it
/// once the lock is released, exactly as a host `next` (the refill may call the provider).
public struct VetoOutcome: Equatable, Sendable {
    public var vetoed: Bool
    public var vetoCount: Int
    public var vetoNeeded: Int
    public var skipsEntry: Int64?
}

/// What the queue's answer is rendered from (GET …/track/queue): the queue and its order (R9/R9b, decided once per
/// write), the entries the asking device liked (R18), the current song's position now (R18a), the veto's view and the
/// device's add budget (R18b).
public struct QueueRendering: Sendable {
    public var queue: Queue
    public var ordered: [QueueEntry]
    public var liked: Set<Int64>?
    public var currentPositionMs: Int
    public var veto: VetoView?
    /// R18b: the asking device's add budget; nil without a device.
    public var budget: AddBudget?
    /// R35: the asking device's songs waiting for the host's approval; nil without a device.
    public var pending: [PendingSong]? = nil
    /// R36: the party's nicknames by device while it shows them; nil while guests stay anonymous.
    public var nicknames: [String: String]? = nil
}

/// R17a on the queue's wire: the party's share and active guests (each entry's threshold follows from them), and
/// which entries the asking device vetoed.
public struct VetoView: Sendable {
    public var share: Double
    public var activeGuests: Int
    public var vetoed: Set<Int64>?

    /// The vetoes that skip `entry` now; nil when its voters could not reach them.
    public func needed(for entry: QueueEntry) -> Int? {
        CrowdVeto.needed(for: entry, vetoShare: share, activeGuests: activeGuests)
    }
}

extension PartyState {
    /// R17a: the device joined, added, liked or vetoed now. Noted at most once per `CrowdVeto.activityResolution`
    /// per device (a like storm rewrote the same row with every like); the veto's ten-minute window of
    /// active guests is exact to within that; when the row is written is `PartyWriters.recordActivity`'s.
    mutating func recordActivity(deviceId: String, partyId: String) throws {
        if let written = live[partyId]?.activityWritten[deviceId], now.timeIntervalSince(written) < CrowdVeto.activityResolution { return }
        let writers = self.writers
        try writers.recordActivity(deviceId: deviceId, partyId: partyId, state: &self)
    }

    /// Writes the party's pending activity (every party's with nil), in one transaction: before it is counted, once
    /// a second (`PartyService.flushActivity`), when a party has `LiveParty.activityDevices` pending, and before the
    /// server stops. What a kill -9 takes is at most a second of when phones were last seen, never a like.
    mutating func flushActivity(partyId: String? = nil) throws {
        let parties = partyId.map { [$0] } ?? live.keys.filter { live[$0]?.pendingActivity.isEmpty == false }
        for partyId in parties {
            guard let pending = live[partyId]?.takePendingActivity(), !pending.isEmpty else { continue }
            try keepingReads { state in
                try state.transaction { state in
                    // Noted first: when this or an enclosing transaction rolls back, the rows are pending again.
                    state.effects.flushedActivity.append((partyId, pending))
                    try state.store.recordActivity(pending, partyId: partyId)
                }
            }
        }
    }

    /// Writes the activity noted in the open transaction, one statement per party (several writers: before it commits).
    mutating func writePendingActivity() throws {
        for partyId in live.keys where live[partyId]?.pendingActivity.isEmpty == false {
            guard let pending = live[partyId]?.takePendingActivity() else { continue }
            effects.flushedActivity.append((partyId, pending))
            try keepingReads { try $0.store.recordActivity(pending, partyId: partyId) }
        }
    }

    var hasPendingActivity: Bool { live.values.contains { !$0.pendingActivity.isEmpty } }

    /// R17a: the guests active now, of whom a song's voters are (nil while the party has the veto off).
    mutating func activeGuests(party: Party) throws -> Int? {
        guard party.settings.vetoShare > 0 else { return nil }
        try flushActivity(partyId: party.id)
        return try store.activeGuestCount(partyId: party.id, since: CrowdVeto.activeSince(now))
    }

    /// R30: a banned device's adds, likes and vetoes are refused for the rest of the party.
    /// R11/R17a: counts a like or veto of the device, or throws `.rateLimited` (`PartyWriters.admitLike`).
    mutating func admitLike(device: String, party: String) throws {
        let writers = self.writers
        try writers.admitLike(device: device, party: party, state: &self)
    }

    mutating func refuseIfBanned(deviceId: String, party: Party) throws {
        if try isBanned(adder: deviceId, partyId: party.id) { throw PartyError.banned }
    }

    private mutating func isBanned(adder: String, partyId: String) throws -> Bool {
        let writers = self.writers
        return try writers.isBanned(adder: adder, partyId: partyId, state: &self)
    }

    /// R30: lifts every ban of the party.
    mutating func liftBans(partyId: String) throws {
        live[partyId]?.bannedAdders = nil
        try store.liftBans(partyId: partyId)
    }

    /// R17a: toggles this device's veto on the entry the uri targets (R10), counted like a like (R11's limits, the
    /// same budget). At the threshold a waiting entry is removed here; the current one is left to the service.
    mutating func veto(uri: String, deviceId: String, clientAddress: String, party: Party) throws -> VetoOutcome {
        try refuseIfBanned(deviceId: deviceId, party: party)
        guard party.settings.vetoShare > 0 else { throw PartyError.vetoOff }
        try admitLike(device: deviceId, party: party.id)
        let current = try cachedParty(id: party.id)?.playback.currentEntryId
        let candidates = Queue(entries: try store.entries(partyId: party.id, uri: uri), currentEntryId: current)
        guard let entry = candidates.target(uri: uri) else { throw PartyError.notInQueue }
        guard entry.mayBeVetoed(by: deviceId) else { throw PartyError.ownSong }
        try admitGuest(deviceId, party: party, clientAddress: clientAddress)
        return try transaction { state in
            let vetoed = try state.store.toggleVeto(entryId: entry.id, deviceId: deviceId)
            try state.recordActivity(deviceId: deviceId, partyId: party.id)
            let count = entry.vetoCount + (vetoed ? 1 : -1)
            let active = try state.activeGuests(party: party) ?? 0
            let voters = CrowdVeto.voters(of: entry, activeGuests: active)
            let needed = CrowdVeto.needed(vetoShare: party.settings.vetoShare, voters: voters) ?? CrowdVeto.minimumVetoes
            state.publish(.vetoUpdated(uri: uri, vetoCount: count, vetoNeeded: needed, entryId: entry.id), partyId: party.id)
            let skips = vetoed && needed <= voters && CrowdVeto.skips(vetoCount: count, needed: needed)
            if skips { state.publish(.entryRemoved(entry: entry, reason: .crowd, wasPlaying: entry.id == current), partyId: party.id) }
            if skips, entry.id != current {
                try state.store.deleteEntry(id: entry.id)
                state.publish(.queueUpdated(.remove), partyId: party.id)
            }
            return VetoOutcome(vetoed: vetoed, vetoCount: count, vetoNeeded: needed, skipsEntry: skips && entry.id == current ? entry.id : nil)
        }
    }

    /// R17a: the entries `deviceId` vetoed.
    mutating func entriesVetoed(by deviceId: String, party: Party) throws -> Set<Int64> {
        try store.entriesVetoed(by: deviceId, partyId: party.id)
    }

    /// R30: bans whoever added `entryId`, without saying who: their waiting entries leave at once. Returns how many
    /// left. The entry of an earlier ban is found again (0 leave); an auto-filled entry has no guest to ban.
    mutating func ban(entryId: Int64, party: Party) throws -> Int {
        let queue = try queue(of: party)
        guard let entry = queue.entries.first(where: { $0.id == entryId }) else {
            if try store.isBanned(entryId: entryId, partyId: party.id) { return 0 }
            throw PartyError.notInQueue
        }
        // A song added without a device id is nobody's: only it leaves, nobody is banned (no owner from an address).
        if entry.isAnonymous {
            guard entry.id != queue.currentEntryId else { return 0 }
            return try transaction { state in
                try state.store.deleteEntry(id: entry.id)
                state.publish(.entryRemoved(entry: entry, reason: .host, wasPlaying: false), partyId: party.id)
                state.publish(.queueUpdated(.remove), partyId: party.id)
                return 1
            }
        }
        guard let adder = entry.guestAdder else { throw PartyError.notAGuestSong }
        live[party.id]?.bannedAdders = nil
        let address = try store.guestAddress(deviceId: adder, partyId: party.id)
        return try transaction { state in
            try state.store.ban(adder: adder, entryId: entryId, partyId: party.id, address: address)
            let leaving = queue.waitingEntries(addedBy: adder)
            for waiting in leaving {
                try state.store.deleteEntry(id: waiting.id)
                state.publish(.entryRemoved(entry: waiting, reason: .ban, wasPlaying: false), partyId: party.id)
            }
            if !leaving.isEmpty { state.publish(.queueUpdated(.remove), partyId: party.id) }
            try state.dropPendingSongs(of: adder, partyId: party.id)
            return leaving.count
        }
    }
}
