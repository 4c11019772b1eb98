import Foundation

/// One key's stamps in a `SlidingWindowLimiter`, oldest first. A key with one stamp (in a storm of new phones, nearly
/// every key) keeps it inline, without an array of its own (a million keys of a like storm were a heap
/// string and a heap array each; the map's cache misses slowed every like by a tenth).
struct WindowStamps: Sendable {
    /// The stamp while there is exactly one; `list` is then empty.
    private var only: Date?
    /// The stamps while there are two or more.
    private var list: [Date] = []

    var count: Int { only == nil ? list.count : 1 }
    var oldest: Date? { only ?? list.first }

    /// Drops the stamps at least `window` old.
    mutating func removeExpired(at now: Date, window: TimeInterval) {
        if let only, !Self.isLive(only, at: now, window: window) { self.only = nil }
        if !list.isEmpty {
            list.removeAll { !Self.isLive($0, at: now, window: window) }
            if list.count == 1 { only = list.removeLast() }
        }
    }

    mutating func append(_ stamp: Date, count: Int = 1) {
        guard count > 0 else { return }
        if count == 1, only == nil, list.isEmpty { return only = stamp }
        if let only {
            list = [only]
            self.only = nil
        }
        list.append(contentsOf: repeatElement(stamp, count: count))
    }

    /// Takes back the newest stamp.
    mutating func removeLast() {
        if only != nil { return only = nil }
        guard !list.isEmpty else { return }
        list.removeLast()
        if list.count == 1 { only = list.removeLast() }
    }

    func live(at now: Date, window: TimeInterval) -> Int {
        if let only { return Self.isLive(only, at: now, window: window) ? 1 : 0 }
        return list.count { Self.isLive($0, at: now, window: window) }
    }

    func oldestLive(at now: Date, window: TimeInterval) -> Date? {
        if let only { return Self.isLive(only, at: now, window: window) ? only : nil }
        return list.first { Self.isLive($0, at: now, window: window) }
    }

    static func isLive(_ stamp: Date, at now: Date, window: TimeInterval) -> Bool { now.timeIntervalSince(stamp) < window }
}
