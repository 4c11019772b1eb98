extension Queue {
    /// R9: playing entry first; guest songs before auto-filled; more likes first; older first.
    public func ordered() -> [QueueEntry] {
        entries.sorted { left, right in
            let leftPlaying = left.id == currentEntryId, rightPlaying = right.id == currentEntryId
            if leftPlaying != rightPlaying { return leftPlaying }
            if left.autofilled != right.autofilled { return !left.autofilled }
            if left.likeCount != right.likeCount { return left.likeCount > right.likeCount }
            if left.addedAt != right.addedAt { return left.addedAt < right.addedAt }
            return left.id < right.id
        }
    }
}
