import MusicVotingKit

/// One queue entry as `queue` prints it: likes, vetoes while the veto is on (R17a), the song, when it starts and
/// whether it is the guest's own (R18a), and who asked for it where the party shows nicknames (R36).
enum QueueLine {
    static func text(_ entry: QueueEntry) -> String {
        var line = "♥ \(entry.likeCount)"
        if let count = entry.vetoCount, let needed = entry.vetoNeeded { line += "  ⏭ \(count)/\(needed)" }
        line += "  \(entry.name) – \(entry.track.artistNames)"
        if !entry.isCurrentlyPlaying, let starts = entry.startsInMs { line += "  (in ~\(max(1, Int((Double(starts) / 60_000).rounded()))) min)" }
        if entry.mine == true { line += "  ★" }
        if let addedBy = entry.addedBy { line += "  @\(addedBy)" }
        return line
    }
}
