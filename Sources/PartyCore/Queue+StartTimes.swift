extension Queue {
    /// R18a: how long until each entry of `ordered` (this queue in its order) starts if nothing changes: the rest of
    /// the current song, then the durations of the songs ahead. `currentPositionMs` is the current song's position
    /// now (frozen while paused or stalled, so the times are counted from now either way). The current entry: 0.
    public func startsInMs(_ ordered: [QueueEntry], currentPositionMs: Int) -> [Int64: Int] {
        Dictionary(zip(ordered.map(\.id), startTimes(ordered, currentPositionMs: currentPositionMs))) { first, _ in first }
    }

    /// As `startsInMs`, one time per entry of `ordered`, in its order (the queue's answer walks them side by side:
    /// no table to build per request).
    public func startTimes(_ ordered: [QueueEntry], currentPositionMs: Int) -> [Int] {
        var times: [Int] = []
        times.reserveCapacity(ordered.count)
        var elapsed = 0
        for entry in ordered {
            times.append(elapsed)
            let left = max(0, entry.id == currentEntryId ? entry.track.durationMs - max(0, currentPositionMs) : entry.track.durationMs)
            elapsed = elapsed > Int.max - left ? Int.max : elapsed + left
        }
        return times
    }
}
