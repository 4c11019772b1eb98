import PartyCore

/// Parties, queues and likes read at one `PartyStore.writeVersion`; emptied when the version moves on, so
/// the database stays the single source of truth: a stale entry cannot be served. On a store other
/// processes write too (`SeveralWriters`), each party's reads also carry the party's `version` and are dropped when a
/// check of it (once per lock hold, `PartyState.alignCache`) finds it moved on.
struct ReadCache {
    static let capacity = 1_000
    private var version: Int64 = -1
    private(set) var parties: [String: Party?] = [:]
    private(set) var queues: [String: Queue] = [:]
    /// Each cached queue in R9/R9b order: the same for every device, so ordered once per write (R9b's fair
    /// order hashes every adder, a cost worth paying once, not once per phone).
    private(set) var ordered: [String: [QueueEntry]] = [:]
    /// R18: the entries each device liked, keyed `party|device`.
    private(set) var liked: [String: Set<Int64>] = [:]
    /// Rendered answers (the queue JSON), keyed by what they answer: the hottest read costs no work at all.
    private(set) var renderings: [String: [UInt8]] = [:]
    /// Shared store: the party version each party's reads were made at.
    private(set) var partyVersions: [String: Int64] = [:]
    /// Shared store: parties whose version was checked in this lock hold (and no local write since).
    private var checked: Set<String> = []

    /// The version the cache is aligned to: a rendering made from reads at this version may be kept.
    var alignedVersion: Int64 { version }

    mutating func align(to version: Int64) {
        guard version != self.version else { return }
        self.version = version
        clear()
    }

    /// What the cache holds is still true at `version` (only writes it holds nothing of came since).
    mutating func keep(at version: Int64) { self.version = version }

    /// As `align(to:)`, keeping the party and queue of `partyId` with one entry's like count changed: the only write
    /// since the cache's version was that like. The queue leaves the cache while it changes, so its entries
    /// are changed in place, not copied.
    mutating func align(to version: Int64, changingLikeCount count: Int, ofEntry entryId: Int64, partyId: String) {
        let party = parties[partyId]
        guard version != self.version, var queue = queues.removeValue(forKey: partyId) else { return align(to: version) }
        align(to: version)
        queue.setLikeCount(count, ofEntry: entryId)
        queues[partyId] = queue
        if let party { parties[partyId] = party }
    }

    /// Empties everything (a rolled-back transaction on a shared store: its party versions may be handed out again).
    mutating func clear() {
        parties.removeAll(keepingCapacity: true)
        queues.removeAll(keepingCapacity: true)
        ordered.removeAll(keepingCapacity: true)
        liked.removeAll(keepingCapacity: true)
        renderings.removeAll(keepingCapacity: true)
        partyVersions.removeAll(keepingCapacity: true)
        checked.removeAll(keepingCapacity: true)
    }

    /// A new lock hold: every party's version is checked again before its reads are served.
    mutating func beginHold() {
        if !checked.isEmpty { checked.removeAll(keepingCapacity: true) }
    }

    func isChecked(partyId: String) -> Bool { checked.contains(partyId) }

    /// Shared store: the party's reads stay if they were made at `partyVersion`, else they go.
    mutating func align(partyId: String, to partyVersion: Int64) {
        checked.insert(partyId)
        guard partyVersions[partyId] != partyVersion else { return }
        if partyVersions.count >= Self.capacity { clear(); checked.insert(partyId) }
        partyVersions[partyId] = partyVersion
        parties[partyId] = nil
        queues[partyId] = nil
        let prefix = partyId + "|"
        for key in liked.keys where key.hasPrefix(prefix) { liked[key] = nil }
        for key in renderings.keys where key.hasPrefix(prefix) { renderings[key] = nil }
    }

    mutating func remember(party: Party?, id: String) {
        if parties.count >= Self.capacity { parties.removeAll() }
        parties[id] = party
    }

    mutating func remember(queue: Queue, partyId: String) {
        if queues.count >= Self.capacity { queues.removeAll() }
        queues[partyId] = queue
        ordered[partyId] = nil
    }

    /// `entries`: the cached queue of the party in order (`remember(queue:)` first).
    mutating func remember(ordered entries: [QueueEntry], partyId: String) {
        guard queues[partyId] != nil else { return }
        ordered[partyId] = entries
    }

    mutating func remember(rendering: [UInt8], key: String) {
        if renderings.count >= Self.capacity { renderings.removeAll() }
        renderings[key] = rendering
    }

    mutating func remember(liked entries: Set<Int64>, key: String) {
        if liked.count >= Self.capacity { liked.removeAll() }
        liked[key] = entries
    }
}
