import Foundation

/// R17a: how many vetoes skip a song. A device may veto the current entry and each waiting one once (a toggle,
/// never its own song); at `needed` vetoes the current entry is skipped as by a host `next`, a waiting one removed.
/// The share applies to the guests who could veto the song: the active ones but its adder. Two guests, never one,
/// skip a song, so a party of three can skip the third guest's song, and a song only one guest could veto offers no
/// veto at all.
public enum CrowdVeto {
    /// Never fewer vetoes than this, however few guests are active: one guest alone never skips a song.
    public static let minimumVetoes = 2
    /// Active: a device that joined, added, liked or vetoed within this window.
    public static let activeWindow: TimeInterval = 10 * 60
    /// A device's activity is written at most this often (a like storm need not rewrite its row with every like):
    /// the window above is then exact to within this.
    public static let activityResolution: TimeInterval = 60

    /// The guests who could veto `entry` among `activeGuests`: all of them but its adder (an auto-filled song and one
    /// added without a device id have none among them). The adder counts as active: it added the song.
    public static func voters(of entry: QueueEntry, activeGuests: Int) -> Int {
        max(0, activeGuests - (entry.guestAdder == nil ? 0 : 1))
    }

    /// max(2, ⌈vetoShare × voters⌉); nil when the party has the veto off (`vetoShare` 0).
    public static func needed(vetoShare: Double, voters: Int) -> Int? {
        guard vetoShare > 0 else { return nil }
        // 0.7 × 10 is 7.000000000000001 in binary floating point: a share of a whole number of guests must not round up past it.
        let share = (vetoShare * Double(max(0, voters)) - 1e-9).rounded(.up)
        return max(minimumVetoes, Int(min(share, Double(Int32.max))))
    }

    /// The vetoes that skip `entry`, or nil when its voters could not reach them (or the veto is off): the pages
    /// then offer no veto on it.
    public static func needed(for entry: QueueEntry, vetoShare: Double, activeGuests: Int) -> Int? {
        let voters = voters(of: entry, activeGuests: activeGuests)
        guard let needed = needed(vetoShare: vetoShare, voters: voters), needed <= voters else { return nil }
        return needed
    }

    /// The oldest activity that still makes a device active at `now`.
    public static func activeSince(_ now: Date) -> Date { now.addingTimeInterval(-activeWindow) }

    /// Whether an entry with `vetoCount` vetoes leaves the queue (skipped when current, removed when waiting).
    public static func skips(vetoCount: Int, needed: Int) -> Bool { vetoCount >= needed }
}

extension QueueEntry {
    /// R17a: a device never vetoes its own song.
    public func mayBeVetoed(by deviceId: String) -> Bool { addedBy != deviceId }

    /// R30: the guest a ban of this entry bans; nil for an auto-filled entry, which no guest added, and for a song
    /// added without a device id, which is nobody's (a ban of it removes that song only).
    public var guestAdder: String? { autofilled || addedBy.isEmpty || isAnonymous ? nil : addedBy }

    /// Added without a device id (the original web frontend): nobody's song. Never derived into ownership from an
    /// address: `mine` never says it, a ban takes only it. R9b counts the network's such songs as one adder's.
    public var isAnonymous: Bool { addedBy.hasPrefix(Self.anonymousPrefix) }

    /// The adder of a song added without a device id from `network`: no device id can be it (ids have no spaces).
    public static func anonymousAdder(network: String) -> String { anonymousPrefix + network }
    private static let anonymousPrefix = "anonymous "
}

extension Queue {
    /// R30: the waiting entries of `adder` (the playing one finishes: a ban takes nothing from the room mid-song).
    public func waitingEntries(addedBy adder: String) -> [QueueEntry] { waiting.filter { !$0.autofilled && $0.addedBy == adder } }
}
