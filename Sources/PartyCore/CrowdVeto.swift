import Foundation

/// R17a: how many vetoes skip a song. A device may veto the current entry and each waiting one once (a toggle,
/// never its own song); at `needed` vetoes the current entry is skipped as by a host `next`, a waiting one removed.
public enum CrowdVeto {
    /// Never fewer vetoes than this, however few guests are active.
    public static let minimumVetoes = 3
    /// Active: a device that joined, added, liked or vetoed within this window.
    public static let activeWindow: TimeInterval = 10 * 60
    /// A device's activity is written at most this often (a like storm need not rewrite its row with every like):
    /// the window above is then exact to within this.
    public static let activityResolution: TimeInterval = 60

    /// max(3, ⌈vetoShare × activeGuests⌉); nil when the party has the veto off (`vetoShare` 0).
    public static func needed(vetoShare: Double, activeGuests: Int) -> Int? {
        guard vetoShare > 0 else { return nil }
        // 0.7 × 10 is 7.000000000000001 in binary floating point: a share of a whole number of guests must not round up past it.
        let share = (vetoShare * Double(max(0, activeGuests)) - 1e-9).rounded(.up)
        return max(minimumVetoes, Int(min(share, Double(Int32.max))))
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
