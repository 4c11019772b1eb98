import Foundation

/// Counts events per key over a rolling window (R11 adds per device, R24/R27 failed PINs per address).
/// A value type: the owner serializes access. With `shared`, its counts live in the shared database
/// under `name` instead (see `SharedLimits`).
public struct SlidingWindowLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private let shared: (name: String, limits: any SharedLimits)?
    /// Each key's stamps, under the key's hash (random per process, so no one can make two keys meet): an integer a
    /// key instead of its text (a like storm's keys are a million strings). Two keys meeting by chance (one
    /// in 10^7 among a million keys) share a window: stricter, never looser.
    private var events: [Int: WindowStamps] = [:]
    private var recordsSincePrune = 0
    /// Records until the next prune: as many as there were keys after the last one, at least 1,024.
    private var recordsBetweenPrunes = 1024

    public init(limit: Int, window: TimeInterval = 60) {
        self.limit = limit
        self.window = window
        shared = nil
    }

    /// A limiter whose counts `limits` keeps under `name`, when given (several instances); in memory otherwise.
    public init(limit: Int, window: TimeInterval = 60, name: String, shared limits: (any SharedLimits)?) {
        self.limit = limit
        self.window = window
        shared = limits.map { (name, $0) }
    }

    /// A database that cannot be asked refuses for this long (stricter, never looser).
    public static let unavailableRetry = 2

    /// Seconds until `key` may act again, or nil when it is under the limit.
    public func retryAfter(key: String, at now: Date) -> Int? {
        if let shared {
            guard let buckets = shared.limits.buckets(name: shared.name, key: key, window: window, at: now) else { return Self.unavailableRetry }
            return WindowBucket.retryAfter(buckets, limit: limit, adding: 1, window: window, at: now)
        }
        guard count(key: key, at: now) >= limit,
              let oldest = events[key.hashValue]?.oldestLive(at: now, window: window) else { return nil }
        return Self.seconds(until: oldest, leaves: window, at: now)
    }

    /// Counts `count` events of each limiter's key, or none when one of them would go over its limit: then the
    /// seconds until it may. One round trip to a shared database (PostgreSQL: the counts are added, read back, and
    /// taken away again when one is over); the same answer as checking each with `remaining` and recording each.
    public static func admit(_ count: Int, _ keyed: [(limiter: SlidingWindowLimiter, key: String)], at now: Date) -> Int? {
        if let first = keyed.first?.limiter.shared {
            let items = keyed.map { SharedLimitItem(name: $0.limiter.shared?.name ?? "", key: $0.key, limit: $0.limiter.limit, window: $0.limiter.window) }
            return first.limits.admit(count, items, at: now)
        }
        return nil
    }

    public mutating func record(key: String, at now: Date, count: Int = 1) {
        if let shared { return shared.limits.add(count, name: shared.name, key: key, window: window, at: now) }
        // In place: the key's stamps are neither copied nor filtered into a new array.
        Self.mutate(&events[key.hashValue, default: WindowStamps()]) { stamps in
            stamps.removeExpired(at: now, window: window)
            stamps.append(now, count: count)
        }
        pruneWhenDue(at: now)
    }

    /// In memory: counts one event of `key` and returns nil, or counts none and returns the seconds until `key` may
    /// act again. The same answer as `retryAfter` then `record`, with one lookup of the key instead of three (issue
    /// 28: a like checks and counts two keys; hashing them was a twentieth of the committer's time).
    mutating func take(key: String, at now: Date) -> Int? {
        precondition(shared == nil, "a shared limiter admits in the database (admit)")
        let (limit, window) = (limit, window)
        let retry: Int? = Self.mutate(&events[key.hashValue, default: WindowStamps()]) { stamps in
            stamps.removeExpired(at: now, window: window)
            guard stamps.count >= limit, let oldest = stamps.oldest else {
                stamps.append(now)
                return nil
            }
            return Self.seconds(until: oldest, leaves: window, at: now)
        }
        if retry == nil { pruneWhenDue(at: now) }
        return retry
    }

    /// A record was counted. A prune walks every key: it runs once the records since the last one match the keys it
    /// kept (at least 1,024), so a record costs O(1) however many keys a window holds (a key per like's
    /// device made every 1,024th like walk hundreds of thousands), and the keys held stay under twice the live ones
    /// + 1,024.
    private mutating func pruneWhenDue(at now: Date) {
        recordsSincePrune += 1
        if recordsSincePrune >= recordsBetweenPrunes { prune(at: now) }
    }

    /// Whole seconds (at least 1) until `oldest` leaves the window.
    private static func seconds(until oldest: Date, leaves window: TimeInterval, at now: Date) -> Int {
        max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))
    }

    private static func mutate<T>(_ stamps: inout WindowStamps, _ body: (inout WindowStamps) -> T) -> T { body(&stamps) }

    /// How many events `key` had in the current window.
    public func count(key: String, at now: Date) -> Int {
        if let shared {
            // A database that cannot be asked counts as a full window.
            return shared.limits.buckets(name: shared.name, key: key, window: window, at: now)?.reduce(0) { $0 + $1.count } ?? limit
        }
        return events[key.hashValue]?.live(at: now, window: window) ?? 0
    }

    /// How many more events `key` may have now, and the milliseconds until one more fits (its oldest counted event
    /// leaves the window; 0 when none is counted). Counts nothing (R18b: a guest's budget, read with the queue).
    public func budget(key: String, at now: Date) -> (left: Int, nextInMs: Int) {
        if let shared {
            // A database that cannot be asked counts as a full window, free again after a short wait.
            guard let buckets = shared.limits.buckets(name: shared.name, key: key, window: window, at: now) else {
                return (0, Self.unavailableRetry * 1000)
            }
            let counted = buckets.filter { $0.count > 0 }
            let next = counted.map(\.leavesAt).min().map { Self.milliseconds(until: $0, at: now) } ?? 0
            return (max(0, limit - counted.reduce(0) { $0 + $1.count }), next)
        }
        guard let stamps = events[key.hashValue], let oldest = stamps.oldestLive(at: now, window: window) else { return (limit, 0) }
        return (max(0, limit - stamps.live(at: now, window: window)), Self.milliseconds(until: oldest.addingTimeInterval(window), at: now))
    }

    private static func milliseconds(until date: Date, at now: Date) -> Int {
        max(0, Int((date.timeIntervalSince(now) * 1000).rounded(.up)))
    }

    /// How many events `key` has left in the current window.
    public func remaining(key: String, at now: Date) -> Int {
        max(0, limit - count(key: key, at: now))
    }

    /// Drops keys whose events all left the window, so memory stays bounded by recent activity.
    public mutating func prune(at now: Date) {
        // In place: only the keys whose every stamp left the window go (rebuilding the whole map, every
        // key's stamps filtered into a new array, was a tenth of a like in a storm of new phones). A kept key's older
        // stamps go when it is next recorded or counted past them.
        let gone = events.compactMap { key, stamps in stamps.oldestLive(at: now, window: window) == nil ? key : nil }
        for key in gone { events.removeValue(forKey: key) }
        recordsSincePrune = 0
        recordsBetweenPrunes = max(1024, events.count)
    }

    public var trackedKeys: Int { events.count }
}
