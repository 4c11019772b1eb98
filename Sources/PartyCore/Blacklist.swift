import Foundation

/// R12: words the host bans; a title, artist or album containing one is refused. Ours: containing
/// means after `BlacklistFold` on both sides, so case, width, accents, hidden characters, spacing and
/// look-alike letters from other scripts do not hide a word. Still a substring: "ass" blocks "Glass".
public struct Blacklist: Equatable, Sendable {
    public var words: [String] { didSet { foldedWords = Self.fold(words) } }
    /// Folded once per blacklist, not per field or per search result; words that fold to nothing are left out.
    private var foldedWords: [BlacklistFold]

    public init(words: [String]) {
        self.words = words
        foldedWords = Self.fold(words)
    }

    public func blocks(_ track: Track) -> Bool {
        guard !foldedWords.isEmpty else { return false }
        return ([track.name, track.album] + track.artists).contains { field in
            let folded = BlacklistFold(field)
            return foldedWords.contains { folded.contains($0) }
        }
    }

    /// Words are trimmed; blank words are meaningless and rejected by the caller.
    public static func normalized(_ word: String) -> String {
        word.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    private static func fold(_ words: [String]) -> [BlacklistFold] {
        words.map(BlacklistFold.init).filter { !$0.isEmpty }
    }
}
