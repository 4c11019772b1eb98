extension Queue {
    /// R18a: how long until each entry of `ordered` (this queue in its order) starts if nothing changes: the rest of
    /// the current song, then the durations of the songs ahead. `currentPositionMs` is the current song's position
    /// now (frozen while paused or stalled, so the times are counted from now either way). The current entry: 0.
    public func startsInMs(_ ordered: [QueueEntry], currentPositionMs: Int) -> [Int64: Int] {
        var times: [Int64: Int] = [:]
        times.reserveCapacity(ordered.count)
        var elapsed = 0
        for entry in ordered {
            times[entry.id] = elapsed
            let left = max(0, entry.id == currentEntryId ? entry.track.durationMs - max(0, currentPositionMs) : entry.track.durationMs)
            elapsed = elapsed > Int.max - left ? Int.max : elapsed + left
        }
        return times
    }
}
