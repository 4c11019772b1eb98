import Foundation

/// One limit as data: at most `limit` events per key in a rolling `window`. `name` tells its counts apart wherever
/// they are kept (in memory, or in the database several instances share).
public struct LimitRule: Sendable, Hashable {
    public let name: String
    public let limit: Int
    public let window: TimeInterval

    public init(_ name: String, limit: Int, window: TimeInterval = 60) {
        self.name = name
        self.limit = limit
        self.window = window
    }
}
