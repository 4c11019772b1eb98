import Foundation

/// Counts events per key over a rolling window (R11 adds per device, R24/R27 failed PINs per address).
/// A value type: the owner serializes access.
public struct SlidingWindowLimiter: Sendable {
    public let limit: Int
    public let window: TimeInterval
    private var events: [String: [Date]] = [:]
    private var recordsSincePrune = 0
    /// Records until the next prune: as many as there were keys after the last one, at least 1,024.
    private var recordsBetweenPrunes = 1024

    public init(limit: Int, window: TimeInterval = 60) {
        self.limit = limit
        self.window = window
    }

    /// Seconds until `key` may act again, or nil when it is under the limit.
    public func retryAfter(key: String, at now: Date) -> Int? {
        let recent = live(events[key] ?? [], at: now)
        guard recent.count >= limit, let oldest = recent.first else { return nil }
        return max(1, Int((oldest.addingTimeInterval(window).timeIntervalSince(now)).rounded(.up)))
    }

    public mutating func record(key: String, at now: Date, count: Int = 1) {
        events[key] = live(events[key] ?? [], at: now) + Array(repeating: now, count: count)
        recordsSincePrune += 1
        // A prune walks every key: it runs once the records since the last one match the keys it kept (at least
        // 1,024), so a record costs O(1) however many keys a window holds (issue 28: a key per like's device made
        // every 1,024th like walk hundreds of thousands), and the keys held stay under twice the live ones + 1,024.
        if recordsSincePrune >= recordsBetweenPrunes { prune(at: now) }
    }

    /// How many events `key` had in the current window.
    public func count(key: String, at now: Date) -> Int {
        live(events[key] ?? [], at: now).count
    }

    /// How many events `key` has left in the current window.
    public func remaining(key: String, at now: Date) -> Int {
        max(0, limit - live(events[key] ?? [], at: now).count)
    }

    /// Drops keys whose events all left the window, so memory stays bounded by recent activity.
    public mutating func prune(at now: Date) {
        events = events.compactMapValues { stamps in
            let recent = live(stamps, at: now)
            return recent.isEmpty ? nil : recent
        }
        recordsSincePrune = 0
        recordsBetweenPrunes = max(1024, events.count)
    }

    public var trackedKeys: Int { events.count }

    private func live(_ stamps: [Date], at now: Date) -> [Date] {
        stamps.filter { now.timeIntervalSince($0) < window }
    }
}
