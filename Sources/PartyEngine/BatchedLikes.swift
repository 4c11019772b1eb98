import Foundation
import PartyCore
import PartyStore

/// Several writers: a group commit's likes of one party, decided in memory from one read of what they need
/// (`PartyStoring.readForLikes`, after the party's row lock, so no other instance changes those rows before the
/// commit) and written in one statement before the commit (`PartyStoring.writeLikes`): a like of the batch is no
/// statement of its own. Only the batch's first pass, without savepoints, gathers its likes so; when it runs again a
/// write at a time, each like writes its own rows.
struct BatchedLikes {
    /// The devices of the batch's likes: the read holds their rows.
    let devices: Set<String>
    /// As read, then as the batch's likes changed it.
    private(set) var read: LikesRead
    private let votesAsRead: Set<VoteKey>
    /// Counts added per limit key and bucket.
    private var added: [String: [Int64: WindowBucket]] = [:]
    private var admitted: [(deviceId: String, address: String, at: Date)] = []
    /// Each entry's net change of its like count.
    private(set) var likeCountChanges: [Int64: Int] = [:]

    init(devices: Set<String>, read: LikesRead) {
        self.devices = devices
        self.read = read
        votesAsRead = read.votes
    }

    /// R11: counts one under `rule` for `key`, or returns the seconds until one fits (nothing counted).
    mutating func admit(_ rule: LimitRule, key: String, at now: Date) -> Int? {
        let oldest = WindowBucket.oldestLive(at: now, window: rule.window)
        let live = (read.counts[key] ?? [:]).filter { $0.key >= oldest }
        if let retry = WindowBucket.retryAfter(Array(live.values), limit: rule.limit, adding: 1, window: rule.window, at: now) { return retry }
        let bucket = WindowBucket.index(at: now, window: rule.window)
        let leavesAt = WindowBucket.leavesAt(bucket, window: rule.window)
        let counted = read.counts[key]?[bucket]?.count ?? 0
        read.counts[key, default: [:]][bucket] = WindowBucket(count: counted + 1, leavesAt: leavesAt)
        added[key, default: [:]][bucket] = WindowBucket(count: (added[key]?[bucket]?.count ?? 0) + 1, leavesAt: leavesAt)
        return nil
    }

    /// R17: as `PartyStoring.setVote`; nil when the read did not look at this vote (the song was added in the batch
    /// after the read): the like then writes it itself.
    mutating func setVote(entryId: Int64, deviceId: String, wanted: Bool?) -> (liked: Bool, changed: Bool)? {
        let vote = VoteKey(entryId: entryId, deviceId: deviceId)
        guard read.votesRead.contains(vote) else { return nil }
        let liked = read.votes.contains(vote)
        let wantsLike = wanted ?? !liked
        guard wantsLike != liked else { return (liked, false) }
        if wantsLike { read.votes.insert(vote) } else { read.votes.remove(vote) }
        likeCountChanges[entryId, default: 0] += wantsLike ? 1 : -1
        return (wantsLike, true)
    }

    /// Whether the device is new to the party (its row is written with the batch's likes).
    mutating func admitGuest(deviceId: String, address: String, at now: Date) -> Bool {
        guard !read.guests.contains(deviceId) else { return false }
        read.guests.insert(deviceId)
        admitted.append((deviceId, address, now))
        return true
    }

    var write: LikesWrite {
        var write = LikesWrite()
        write.counts = added.flatMap { key, buckets in buckets.map { (key, $0.key, $0.value.count, $0.value.leavesAt) } }
        write.guests = admitted
        write.liked = Array(read.votes.subtracting(votesAsRead))
        write.unliked = Array(votesAsRead.subtracting(read.votes))
        write.likeCounts = likeCountChanges.filter { $0.value != 0 }.map { ($0.key, $0.value) }
        return write
    }
}
