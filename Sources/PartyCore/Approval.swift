import Foundation

/// R35: which guests' adds wait for the host's approval.
public enum ApprovalMode: String, CaseIterable, Sendable {
    /// Every add enters the queue at once (the API default: the older clients see today's party).
    case off
    /// A guest's adds wait until the host approved one of its songs; from then on they enter at once.
    case newGuests = "new-guests"
    /// Every guest's add waits.
    case all

    /// Whether an add from a guest waits for the host; `trusted`: the host approved one of this guest's songs before.
    /// The host's own adds never wait.
    public func holds(trusted: Bool) -> Bool {
        switch self {
        case .off: false
        case .newGuests: !trusted
        case .all: true
        }
    }

    /// Whether the answer to `holds` depends on the guest (the store is asked only then).
    public var asksWhetherTrusted: Bool { self == .newGuests }
}

/// R35: a guest's add waiting for the host. `adder` identifies the guest as the queue's entries do; it never leaves
/// the server (the host approves a song, not a person).
public struct PendingSong: Equatable, Sendable {
    public var id: Int64
    public var track: Track
    public var requestedAt: Date
    public var adder: String

    public init(id: Int64, track: Track, requestedAt: Date, adder: String) {
        self.id = id
        self.track = track
        self.requestedAt = requestedAt
        self.adder = adder
    }

    /// The song as the queue entry it becomes when approved `at` that moment: R9 orders it as if added then.
    public func entry(id entryId: Int64, approvedAt: Date) -> QueueEntry {
        QueueEntry(id: entryId, track: track, addedAt: approvedAt, addedBy: adder)
    }
}

extension Queue {
    /// R35: how an approved song joins the waiting entries. R12 was applied at the add and the host has seen the
    /// song, so only R10 counts now: a copy that waits meanwhile refuses it (the host declines it), an auto-filled
    /// copy becomes the guest's.
    public func admission(approving song: PendingSong) -> Admission {
        admission(for: song.track, blacklist: Blacklist(words: []))
    }
}

extension Array where Element == PendingSong {
    /// R10 among the songs waiting for approval: the one that is `track` (same uri, ISRC or song, as R10a compares).
    public func copy(of track: Track) -> PendingSong? {
        let songs = WaitingSongs(map { QueueEntry(id: $0.id, track: $0.track, addedAt: $0.requestedAt, addedBy: $0.adder) })
        guard let entry = songs.copy(of: track) else { return nil }
        return first { $0.id == entry.id }
    }
}
