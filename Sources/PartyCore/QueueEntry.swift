import Foundation

/// A track waiting in (or playing from) a party's queue, with the devices that liked it.
public struct QueueEntry: Equatable, Sendable {
    public var id: Int64
    public var track: Track
    public var addedAt: Date
    public var addedBy: String
    public var autofilled: Bool
    public var voters: Set<String>

    public init(id: Int64, track: Track, addedAt: Date, addedBy: String, autofilled: Bool = false, voters: Set<String> = []) {
        self.id = id
        self.track = track
        self.addedAt = addedAt
        self.addedBy = addedBy
        self.autofilled = autofilled
        self.voters = voters
    }

    public var likeCount: Int { voters.count }
}
