import Foundation

/// R36: a guest's nickname, as the party shows it. Hostile text until proven otherwise: bounded in characters and in
/// bytes, free of controls, bidirectional overrides and invisible characters, and compared in the blacklist's folds
/// (`BlacklistFold`), so "DJ Anna", "dj anna" and "DJ Αnna" (a Greek capital alpha) are one nickname.
public struct Nickname: Equatable, Sendable {
    /// What pages show: trimmed, NFC.
    public let text: String
    /// The folds that make two nicknames one (either equal: taken).
    public let caselessKey: String
    public let writtenKey: String

    public static let maxCharacters = 24
    /// A bound in bytes too: 24 characters of four bytes each, so no character count hides a long string.
    public static let maxBytes = 96
    /// At most this many combining marks on one character (accents stack; "Zalgo" text does not).
    static let maxMarksPerCharacter = 2

    /// Validates `raw`; nil when it is not a nickname: empty, too long, or holding characters that hide or reorder
    /// text (controls, format characters such as bidirectional overrides and zero-width spaces, separators other
    /// than the space, private use, unassigned). A zero-width joiner between emoji and an emoji variation selector are
    /// kept: phones type them in everyday emoji.
    public init?(_ raw: String) {
        guard raw.utf8.count <= Self.maxBytes * 4 else { return nil }
        let text = raw.precomposedStringWithCanonicalMapping.trimmingCharacters(in: .whitespaces)
        guard !text.isEmpty, text.count <= Self.maxCharacters, text.utf8.count <= Self.maxBytes else { return nil }
        guard Self.isShowable(text) else { return nil }
        let fold = BlacklistFold(text)
        guard !fold.isEmpty else { return nil }
        self.text = text
        caselessKey = fold.text
        writtenKey = String(String.UnicodeScalarView(fold.asWritten))
    }

    /// Every character is one a person sees, in the order it is written.
    static func isShowable(_ text: String) -> Bool {
        for character in text {
            let scalars = Array(character.unicodeScalars)
            var marks = 0
            for (index, scalar) in scalars.enumerated() {
                let category = scalar.properties.generalCategory
                if category == .nonspacingMark || category == .enclosingMark { marks += 1 }
                if scalar == " " { continue }
                if scalar.value == 0x200D || scalar.value == 0xFE0F || scalar.value == 0xFE0E {
                    // An emoji sequence's joiner or presentation selector, only right after an emoji.
                    guard index > 0, scalars[index - 1].properties.isEmoji else { return false }
                    continue
                }
                if scalar.properties.isDefaultIgnorableCodePoint { return false }
                switch category {
                case .control, .format, .lineSeparator, .paragraphSeparator, .spaceSeparator, .privateUse, .surrogate, .unassigned:
                    return false
                default:
                    continue
                }
            }
            if marks > Self.maxMarksPerCharacter { return false }
        }
        return true
    }
}

extension Blacklist {
    /// R36 with R12: whether a nickname contains a blacklist word (in either fold, as titles are checked).
    public func blocks(_ nickname: Nickname) -> Bool {
        let folded = BlacklistFold(nickname.text)
        return words.contains { word in
            let foldedWord = BlacklistFold(word)
            return folded.contains(foldedWord)
        }
    }
}
