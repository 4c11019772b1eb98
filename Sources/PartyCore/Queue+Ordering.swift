extension Queue {
    /// R9: playing entry first; guest songs before auto-filled; more likes first; older first.
    /// R9b: with `fairness`, guest songs with equal likes are taken turn by turn (`FairOrder`).
    public func ordered() -> [QueueEntry] {
        let plain = plainOrder().map { entries[$0] }
        guard let fairness else { return plain }
        return fairness.reordered(plain, currentEntryId: currentEntryId)
    }

    /// The ids of the waiting entries in R9 order once the entry `id` has `count` likes (each like's event
    /// carries them; sorting positions copies no entry, and the queue itself is not copied to change one count).
    public func waitingIds(likeCount count: Int, ofEntry id: Int64) -> [Int64] {
        guard fairness == nil else {
            var changed = self
            changed.setLikeCount(count, ofEntry: id)
            return changed.waiting.map(\.id)
        }
        return plainOrder(likeCount: (id, count)).lazy.map { entries[$0].id }.filter { $0 != currentEntryId }
    }

    /// R9 without R9b, as positions in `entries`; `likeCount` overrides one entry's count.
    private func plainOrder(likeCount override: (id: Int64, count: Int)? = nil) -> [Int] {
        let current = currentEntryId
        func likes(_ entry: QueueEntry) -> Int {
            if let override, entry.id == override.id { return override.count }
            return entry.likeCount
        }
        return entries.withUnsafeBufferPointer { entries in
            entries.indices.sorted { leftIndex, rightIndex in
                let left = entries[leftIndex], right = entries[rightIndex]
                let leftPlaying = left.id == current, rightPlaying = right.id == current
                if leftPlaying != rightPlaying { return leftPlaying }
                if left.autofilled != right.autofilled { return !left.autofilled }
                let leftLikes = likes(left), rightLikes = likes(right)
                if leftLikes != rightLikes { return leftLikes > rightLikes }
                if left.addedAt != right.addedAt { return left.addedAt < right.addedAt }
                return left.id < right.id
            }
        }
    }
}

/// R9b: among guest entries with equal likes, the one whose adder has had fewer songs played plus fewer of
/// their songs ahead of it comes first; then `added_at`. The adder is `QueueEntry.addedBy`. The playing song is
/// ahead of every waiting one: its adder's next song waits behind the other adders' first.
public struct FairOrder: Equatable, Sendable {
    /// Songs played per adder in this party: a counter, not a history (R14).
    public var playedByAdder: [String: Int]

    public init(playedByAdder: [String: Int] = [:]) {
        self.playedByAdder = playedByAdder
    }

    /// `plain` is in R9 order. Like groups are visited from most likes down; within one, an adder's k-th song
    /// (in R9 order) scores played + songs of theirs placed in earlier groups + k, and the group sorts by score,
    /// then R9 (an adder's own songs keep their order). O(n log n).
    func reordered(_ plain: [QueueEntry], currentEntryId: Int64?) -> [QueueEntry] {
        guard let start = plain.firstIndex(where: { $0.id != currentEntryId && !$0.autofilled }) else { return plain }
        let end = plain[start...].firstIndex { $0.autofilled } ?? plain.endIndex
        var result = Array(plain[..<start])
        var ahead: [String: Int] = [:]
        if let playing = plain.first, playing.id == currentEntryId, !playing.autofilled { ahead[playing.addedBy] = 1 }
        var groupStart = start
        while groupStart < end {
            let likes = plain[groupStart].likeCount
            let groupEnd = plain[groupStart..<end].firstIndex { $0.likeCount != likes } ?? end
            var inGroup: [String: Int] = [:]
            let scored = plain[groupStart..<groupEnd].enumerated().map { rank, entry -> (score: Int, rank: Int, entry: QueueEntry) in
                let adder = entry.addedBy
                let score = playedByAdder[adder, default: 0] + ahead[adder, default: 0] + inGroup[adder, default: 0]
                inGroup[adder, default: 0] += 1
                return (score, rank, entry)
            }
            result += scored.sorted { ($0.score, $0.rank) < ($1.score, $1.rank) }.map(\.entry)
            for (adder, count) in inGroup { ahead[adder, default: 0] += count }
            groupStart = groupEnd
        }
        return result + plain[end...]
    }
}
