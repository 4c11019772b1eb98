import Foundation

/// Counts events per key over a rolling window (R11 adds per device, R24/R27 failed PINs per address).
/// A value type in memory: the owner serializes access. (Several instances count in their database instead, in
/// buckets: `WindowBucket`.)
public struct SlidingWindowLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
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
    }

    /// A limiter for `rule`.
    public init(_ rule: LimitRule) {
        self.init(limit: rule.limit, window: rule.window)
    }

    /// Seconds until `key` may act again, or nil when it is under the limit.
    public func retryAfter(key: String, at now: Date) -> Int? {
        guard count(key: key, at: now) >= limit,
              let oldest = events[key.hashValue]?.oldestLive(at: now, window: window) else { return nil }
        return Self.seconds(until: oldest, leaves: window, at: now)
    }

    public mutating func record(key: String, at now: Date, count: Int = 1) {
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
    public mutating func take(key: String, at now: Date) -> Int? {
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
        events[key.hashValue]?.live(at: now, window: window) ?? 0
    }

    /// How many more events `key` may have now, and the milliseconds until one more fits (its oldest counted event
    /// leaves the window; 0 when none is counted). Counts nothing (R18b: a guest's budget, read with the queue).
    public func budget(key: String, at now: Date) -> (left: Int, nextInMs: Int) {
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
