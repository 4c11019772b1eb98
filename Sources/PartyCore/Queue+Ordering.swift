extension Queue {
    /// R9: playing entry first; guest songs before auto-filled; more likes first; older first.
    /// R9b: with `fairness`, guest songs with equal likes are taken turn by turn (`FairOrder`).
    public func ordered() -> [QueueEntry] {
        let plain = entries.sorted { left, right in
            let leftPlaying = left.id == currentEntryId, rightPlaying = right.id == currentEntryId
            if leftPlaying != rightPlaying { return leftPlaying }
            if left.autofilled != right.autofilled { return !left.autofilled }
            if left.likeCount != right.likeCount { return left.likeCount > right.likeCount }
            if left.addedAt != right.addedAt { return left.addedAt < right.addedAt }
            return left.id < right.id
        }
        guard let fairness else { return plain }
        return fairness.reordered(plain, currentEntryId: currentEntryId)
    }
}

/// R9b: among guest entries with equal likes, the one whose adder has had fewer songs played plus fewer of
/// their songs waiting ahead of it comes first; then `added_at`. The adder is `QueueEntry.addedBy`.
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
