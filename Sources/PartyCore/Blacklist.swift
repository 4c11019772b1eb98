import Foundation

/// R12: words the host bans; a title or artist containing one (case-insensitive) is refused.
public struct Blacklist: Equatable, Sendable {
    public var words: [String]

    public init(words: [String]) { self.words = words }

    public func blocks(_ track: Track) -> Bool {
        let fields = ([track.name] + track.artists).map { $0.lowercased() }
        return words.contains { word in
            let needle = word.lowercased()
            return !needle.isEmpty && fields.contains { $0.contains(needle) }
        }
    }

    /// Words are trimmed; blank words are meaningless and rejected by the caller.
    public static func normalized(_ word: String) -> String {
        word.trimmingCharacters(in: .whitespacesAndNewlines)
    }
}
