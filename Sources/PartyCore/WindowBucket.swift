import Foundation

/// One bucket of a window whose counts several instances share (PostgreSQL). Counts live in fixed buckets of a sixth
/// of a window; a window counts its current bucket and the six before it, so it spans between one and seven sixths of
/// the window: never fewer events than the rolling window of one instance would count (exact or stricter, never
/// looser). The arithmetic is here; the database that keeps the buckets is the limits' PostgreSQL side.
/// One bucket: its events, and when it leaves the window.
public struct WindowBucket: Sendable, Equatable {
    public let count: Int
    public let leavesAt: Date

    public init(count: Int, leavesAt: Date) {
        self.count = count
        self.leavesAt = leavesAt
    }

    /// A window's buckets: this many sixths of it.
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

    /// How many more events fit under `limit`, and the milliseconds until one more does (the oldest counted bucket
    /// leaves the window; 0 when none is counted): `SlidingWindowLimiter.budget` for buckets.
    public static func budget(_ buckets: [WindowBucket], limit: Int, at now: Date) -> (left: Int, nextInMs: Int) {
        let counted = buckets.filter { $0.count > 0 }
        let next = counted.map(\.leavesAt).min().map { max(0, Int(($0.timeIntervalSince(now) * 1000).rounded(.up))) } ?? 0
        return (max(0, limit - counted.reduce(0) { $0 + $1.count }), next)
    }

    /// The oldest bucket still in the window at `now`.
    public static func oldestLive(at now: Date, window: TimeInterval) -> Int64 {
        index(at: now, window: window) - Int64(perWindow - 1)
    }
}
