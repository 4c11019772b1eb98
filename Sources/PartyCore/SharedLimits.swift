import Foundation

/// Limit counts that several instances share (PostgreSQL), so guesses spread over
/// instances get no more than one instance allows. Counts live in fixed buckets of a sixth of a window; a window
/// counts its current bucket and the six before it, so it spans between one and seven sixths of the window:
/// never fewer events than the rolling window of one instance would count (exact or stricter, never looser).
/// A failed database call answers "over the limit" (a few seconds), never "under it".
public protocol SharedLimits: AnyObject, Sendable {
    /// The key's live buckets in limiter `name` at `now`, or nil when the database cannot be asked.
    func buckets(name: String, key: String, window: TimeInterval, at now: Date) -> [WindowBucket]?
    /// Counts `count` events of the key in its current bucket.
    func add(_ count: Int, name: String, key: String, window: TimeInterval, at now: Date)
    /// Runs `body` while no other instance runs a body for `key` (PostgreSQL: an advisory lock held until the
    /// body's counts commit): a check, the secret's comparison and the failure it records take turns cluster-wide.
    func serialized<T>(_ key: String, _ body: () throws -> T) throws -> T
    /// Drops buckets that left every window.
    func prune(at now: Date)
    /// Counts `count` events of every item's key at once, or none when one of them would go over its limit: then the
    /// seconds until it may (the first such item's); a database that cannot be asked refuses.
    func admit(_ count: Int, _ items: [SharedLimitItem], at now: Date) -> Int?
}

/// One limiter's key in `SharedLimits.admit`.
public struct SharedLimitItem: Sendable {
    public let name: String
    public let key: String
    public let limit: Int
    public let window: TimeInterval
}

/// One bucket of a shared window: its events, and when it leaves the window.
public struct WindowBucket: Sendable, Equatable {
    public let count: Int
    public let leavesAt: Date

    public init(count: Int, leavesAt: Date) {
        self.count = count
        self.leavesAt = leavesAt
    }

    /// A window's buckets: this many sixths of it (see `SharedLimits`).
    public static let perWindow = 7

    public static func length(of window: TimeInterval) -> TimeInterval { window / 6 }

    /// The number of the bucket `now` falls in.
    public static func index(at now: Date, window: TimeInterval) -> Int64 {
        Int64((now.timeIntervalSince1970 / length(of: window)).rounded(.down))
    }

    /// When bucket `index` leaves the window.
    public static func leavesAt(_ index: Int64, window: TimeInterval) -> Date {
        Date(timeIntervalSince1970: Double(index + Int64(perWindow)) * length(of: window))
    }

    /// Seconds until `adding` more events fit under `limit` (as `buckets` leave the window), or nil when they fit now.
    public static func retryAfter(_ buckets: [WindowBucket], limit: Int, adding: Int, window: TimeInterval, at now: Date) -> Int? {
        var total = buckets.reduce(0) { $0 + $1.count }
        guard total + adding > limit else { return nil }
        for bucket in buckets.sorted(by: { $0.leavesAt < $1.leavesAt }) {
            total -= bucket.count
            if total + adding <= limit { return max(1, Int(bucket.leavesAt.timeIntervalSince(now).rounded(.up))) }
        }
        return Int(window)
    }

    /// The oldest bucket still in the window at `now`.
    public static func oldestLive(at now: Date, window: TimeInterval) -> Int64 {
        index(at: now, window: window) - Int64(perWindow - 1)
    }
}

/// What a shared database keeps for the engine's guards (R31): the limit counts and TV pairings.
public protocol SharedGuards: SharedLimits {
    /// Runs `body` on the pairings the database holds, none of which another instance changes meanwhile; keeps
    /// what `body` changed (also when it throws).
    func withPairings<T>(at now: Date, _ body: (inout TVPairings) throws -> T) throws -> T
}
