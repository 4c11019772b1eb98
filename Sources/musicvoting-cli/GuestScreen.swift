import Foundation
import MusicVotingKit

/// `musicvoting-cli join PIN`: now playing and the queue, live; type words to search, `a N` to add result N,
/// `l N` to like queue song N, `q` to quit.
@MainActor
struct GuestScreen {
    let party: GuestParty
    let pin: String
    let strings: KitStrings
    var query = ""

    func render() {
        var lines = ["MusicVoting · PIN \(pin)", ""]
        if party.ended { lines.append(strings[.partyEnded]); Terminal.draw(lines); return }
        if let current = party.current {
            lines.append("\(strings[.nowPlaying]): \(current.name) – \(current.track.artistNames)")
        } else {
            lines.append(strings[.nothingPlaying])
        }
        lines += ["", "\(strings[.upNext]):"]
        if party.queue.isEmpty { lines.append("  " + strings[.queueEmpty]) }
        for (index, entry) in party.queue.enumerated() {
            let mark = entry.hasVoted == true ? "♥" : "♡"
            let auto = entry.autofilled ? "  [\(strings[.autofilled])]" : ""
            lines.append(String(format: "%3d. %@ %2d  ", index + 1, mark, entry.likeCount) + "\(entry.name) – \(entry.track.artistNames)\(auto)")
        }
        lines += ["", query.isEmpty ? "\(strings[.topTen]):" : "\(strings[.searchPrompt]) „\(query)“:"]
        for (index, track) in party.results.enumerated() {
            lines.append("  a\(index + 1)  \(track.name) – \(track.artistNames)\(track.blocked == true ? "  ⊘" : "")")
        }
        if let message = party.message { lines += ["", message] }
        lines += ["", "words: search · a N: add · l N: like · q: quit"]
        Terminal.draw(lines)
    }

    /// One typed line; false to quit.
    mutating func handle(_ line: String) async -> Bool {
        let text = line.trimmingCharacters(in: .whitespaces)
        if text == "q" { return false }
        if let number = Self.command("a", text), party.results.indices.contains(number - 1) {
            await party.add(party.results[number - 1])
        } else if let number = Self.command("l", text), party.queue.indices.contains(number - 1) {
            await party.like(party.queue[number - 1])
        } else {
            query = text
            await party.search(text)
        }
        return true
    }

    /// `a3` or `a 3` → 3.
    static func command(_ letter: Character, _ text: String) -> Int? {
        guard text.first == letter else { return nil }
        return Int(text.dropFirst().trimmingCharacters(in: .whitespaces))
    }
}
