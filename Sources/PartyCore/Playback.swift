import Foundation

/// R19: the server-held playback state. Position is derived, never stored while playing.
public struct Playback: Equatable, Sendable {
    /// R20: a second advance this soon after the last one is a no-op.
    public static let advanceDebounce: TimeInterval = 3

    public var currentEntryId: Int64?
    public var startedAt: Date?
    public var pausedPositionMs: Int
    public var isPlaying: Bool
    /// R16: a host pause keeps an idle party from starting by itself when a song is added.
    public var pausedByHost: Bool
    public var lastAdvanceAt: Date?
    /// R20a: why nobody hears the song, while `isStalled` (stored with it: every instance, and the server after a
    /// restart, tells the reason the instance that stalled it knew).
    public var stallReason: StallReason?

    public init(currentEntryId: Int64? = nil, startedAt: Date? = nil, pausedPositionMs: Int = 0,
                isPlaying: Bool = false, pausedByHost: Bool = false, lastAdvanceAt: Date? = nil, stallReason: StallReason? = nil) {
        self.currentEntryId = currentEntryId
        self.startedAt = startedAt
        self.pausedPositionMs = pausedPositionMs
        self.isPlaying = isPlaying
        self.pausedByHost = pausedByHost
        self.lastAdvanceAt = lastAdvanceAt
        self.stallReason = stallReason
    }

    /// R19: now − startedAt while playing, the paused position otherwise.
    public func positionMs(at now: Date) -> Int {
        guard isPlaying, let startedAt else { return pausedPositionMs }
        return max(0, Int(saturating: (now.timeIntervalSince(startedAt) * 1000).rounded()))
    }

    /// R16: nothing playing and not paused by the host.
    public var isIdle: Bool { currentEntryId == nil && !pausedByHost }

    /// Plays `entryId` from `positionMs`.
    public mutating func play(entryId: Int64, fromMs positionMs: Int = 0, at now: Date) {
        currentEntryId = entryId
        isPlaying = true
        pausedByHost = false
        pausedPositionMs = 0
        startedAt = now.addingTimeInterval(-Double(positionMs) / 1000)
    }

    public mutating func pause(at now: Date) {
        guard currentEntryId != nil else { return }
        pausedPositionMs = positionMs(at: now)
        isPlaying = false
        pausedByHost = true
        startedAt = nil
    }

    /// R19: resume continues the current entry at the paused position.
    public mutating func resume(at now: Date) {
        guard let currentEntryId, !isPlaying else { return }
        play(entryId: currentEntryId, fromMs: pausedPositionMs, at: now)
    }

    /// Nothing is current any more (queue ran dry).
    public mutating func stop() {
        currentEntryId = nil
        isPlaying = false
        startedAt = nil
        pausedPositionMs = 0
    }

    /// R20: whether an advance now would be the duplicate of one that just happened.
    public func advanceIsDuplicate(at now: Date) -> Bool {
        guard let lastAdvanceAt else { return false }
        let elapsed = now.timeIntervalSince(lastAdvanceAt)
        return elapsed >= 0 && elapsed < Self.advanceDebounce
    }
}
