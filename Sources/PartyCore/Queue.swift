import Foundation

/// One party's queue: its entries and which of them is playing.
public struct Queue: Equatable, Sendable {
    public var entries: [QueueEntry]
    public var currentEntryId: Int64?

    public init(entries: [QueueEntry], currentEntryId: Int64?) {
        self.entries = entries
        self.currentEntryId = currentEntryId
    }

    public var current: QueueEntry? { entries.first { $0.id == currentEntryId } }

    /// Entries that are not playing, in R9 order.
    public var waiting: [QueueEntry] { ordered().filter { $0.id != currentEntryId } }

    /// R10: remove and vote target the waiting copy; the playing entry only when it is the sole copy.
    public func target(uri: String) -> QueueEntry? {
        waiting.first { $0.track.uri == uri } ?? current.flatMap { $0.track.uri == uri ? $0 : nil }
    }

    /// R20: the first entry by R9 that is not the current one.
    public var next: QueueEntry? { waiting.first }

    /// R10 and R12: whether `track` may join the waiting entries.
    public func admissionError(for track: Track, blacklist: Blacklist) -> PartyError? {
        if blacklist.blocks(track) { return .blacklisted }
        if waiting.contains(where: { $0.track.uri == track.uri }) { return .duplicate }
        return nil
    }
}
