import Foundation

/// One party's queue: its entries and which of them is playing.
public struct Queue: Equatable, Sendable {
    public var entries: [QueueEntry]
    public var currentEntryId: Int64?
    /// R9b: set when the party's `fairQueue` is on; nil keeps R9 exactly.
    public var fairness: FairOrder?

    public init(entries: [QueueEntry], currentEntryId: Int64?, fairness: FairOrder? = nil) {
        self.entries = entries
        self.currentEntryId = currentEntryId
        self.fairness = fairness
    }

    public var current: QueueEntry? { entries.first { $0.id == currentEntryId } }

    /// Entries that are not playing, in R9 order.
    public var waiting: [QueueEntry] { ordered().filter { $0.id != currentEntryId } }

    /// R10: remove and vote target the waiting copy; the playing entry only when it is the sole copy.
    public func target(uri: String) -> QueueEntry? {
        // One waiting copy (the usual case) needs no order (a like storm sorted the queue for it).
        var only: Int?
        for index in entries.indices where entries[index].id != currentEntryId && entries[index].track.uri == uri {
            if only != nil { return waiting.first { $0.track.uri == uri } }
            only = index
        }
        if let only { return entries[only] }
        return current.flatMap { $0.track.uri == uri ? $0 : nil }
    }

    /// R12: the waiting songs `blacklist` blocks (the host may remove them after adding a word),
    /// each uri once, in R9 order. The playing song is left alone.
    public func waitingUris(blockedBy blacklist: Blacklist) -> [String] {
        var seen = Set<String>()
        return waiting.filter { blacklist.blocks($0.track) && seen.insert($0.track.uri).inserted }.map(\.track.uri)
    }

    /// R17: the entry's like count is now `count` (a like or its withdrawal, applied to a queue already read).
    public mutating func setLikeCount(_ count: Int, ofEntry id: Int64) {
        guard let index = entries.firstIndex(where: { $0.id == id }) else { return }
        entries[index].likeCount = count
    }

    /// R20: the first entry by R9 that is not the current one.
    public var next: QueueEntry? { waiting.first }

    /// What adding `track` does to the waiting entries.
    public enum Admission: Equatable, Sendable {
        case insert
        /// A guest asked for a song that waits only as an auto-filled entry: it becomes the guest's (R9 moves it up).
        case promote(entryId: Int64)
        case refuse(PartyError)
    }

    /// R10, R10a and R12: whether and how a guest's `track` joins the waiting entries.
    public func admission(for track: Track, blacklist: Blacklist) -> Admission {
        admission(for: track, blacklist: blacklist, waitingSongs: WaitingSongs(waiting))
    }

    /// As above, against waiting entries indexed once for many candidates. A version of an auto-filled song is
    /// promoted too: the waiting copy becomes the guest's (it keeps its own version).
    public func admission(for track: Track, blacklist: Blacklist, waitingSongs: WaitingSongs) -> Admission {
        if blacklist.blocks(track) { return .refuse(.blacklisted) }
        guard let waitingCopy = waitingSongs.copy(of: track) else { return .insert }
        if waitingCopy.autofilled { return .promote(entryId: waitingCopy.id) }
        return .refuse(.duplicate(existingUri: waitingCopy.track.uri, position: waitingSongs.place(of: waitingCopy)))
    }
}
