/// R15: which tracks a refill adds.
public enum Refill {
    public static let batchSize = 10

    /// Up to `limit` admissible candidates; never the song that just ended, and songs this party played
    /// recently only when nothing else is left (so the music keeps going), least recently played first.
    /// `recentlyPlayed` is newest first.
    public static func choose(from candidates: [Track], queue: Queue, blacklist: Blacklist,
                              recentlyPlayed: [String], limit: Int = batchSize) -> [Track] {
        var seen: Set<String> = []
        let waitingSongs = WaitingSongs(queue.waiting)
        let admissible = candidates.filter { track in
            guard seen.insert(track.uri).inserted, track.uri != recentlyPlayed.first,
                  track.uri != queue.current?.track.uri else { return false }
            return queue.admission(for: track, blacklist: blacklist, waitingSongs: waitingSongs) == .insert
        }
        let recency = Dictionary(recentlyPlayed.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        let fresh = admissible.filter { recency[$0.uri] == nil }
        if !fresh.isEmpty { return Array(fresh.prefix(limit)) }
        return Array(admissible.sorted { recency[$0.uri, default: 0] > recency[$1.uri, default: 0] }.prefix(limit))
    }
}
