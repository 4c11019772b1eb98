import Foundation

/// A track waiting in (or playing from) a party's queue, with how many devices liked it.
public struct QueueEntry: Equatable, Sendable {
    public var id: Int64
    public var track: Track
    public var addedAt: Date
    public var addedBy: String
    public var autofilled: Bool
    /// Counted by the database (one aggregate), never by reading every voter: a stuffed song has thousands.
    public var likeCount: Int
    /// R17a: devices that want it skipped, counted like likes.
    public var vetoCount: Int

    public init(id: Int64, track: Track, addedAt: Date, addedBy: String, autofilled: Bool = false, likeCount: Int = 0, vetoCount: Int = 0) {
        self.id = id
        self.track = track
        self.addedAt = addedAt
        self.addedBy = addedBy
        self.autofilled = autofilled
        self.likeCount = likeCount
        self.vetoCount = vetoCount
    }
}
