import Foundation

/// R20a: what the party's listeners hear. `playing` only while the monitor reports audible playback.
public enum PlaybackState: String, Sendable {
    case playing, paused, stalled, idle
}

/// R20a: why a current song that the host did not pause is not heard.
public enum StallReason: String, Sendable {
    /// No monitor connected (closed, reloading, in the back/forward cache).
    case noMonitor = "no-monitor"
    /// The monitor's browser refused to play without a tap.
    case autoplayBlocked = "autoplay-blocked"
    /// Connected, but no audible progress for more than `Playback.silenceLimit` while it should play.
    case monitorSilent = "monitor-silent"
    /// The provider's player failed.
    case providerError = "provider-error"
}

extension Playback {
    /// R20a: a monitor that should play and reports no audible progress this long is `monitor-silent`.
    public static let silenceLimit: TimeInterval = 5

    /// R20a: a current song the host did not pause whose clock stands still, because nobody hears it.
    /// Stored as not playing and not paused by the host, at the frozen position.
    public var isStalled: Bool { currentEntryId != nil && !isPlaying && !pausedByHost }

    /// R20a: the state clients show. A stall without a known reason is `no-monitor` (after a restart).
    public func state(stallReason: StallReason?) -> (PlaybackState, StallReason?) {
        if currentEntryId == nil { return (.idle, nil) }
        if isPlaying { return (.playing, nil) }
        if pausedByHost { return (.paused, nil) }
        return (.stalled, stallReason ?? .noMonitor)
    }

    /// R20a: stops the clock at `positionMs` (where the audio stopped), without counting as a host pause.
    public mutating func stall(atMs positionMs: Int) {
        guard currentEntryId != nil, isPlaying else { return }
        pausedPositionMs = max(0, positionMs)
        isPlaying = false
        startedAt = nil
    }

    /// R20a: the monitor is heard again: the clock runs on from `positionMs`, never from 0.
    public mutating func unstall(atMs positionMs: Int, at now: Date) {
        guard isStalled, let currentEntryId else { return }
        play(entryId: currentEntryId, fromMs: positionMs, at: now)
    }
}
