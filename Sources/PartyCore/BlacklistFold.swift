import Foundation

/// A text as the blacklist compares it, so disguises of a word fold to the word. Steps, the same for
/// the word and for every field:
/// 1. NFKD: compatibility forms become plain letters (full-width "ｓ", mathematical bold "𝐬", ligature "ﬁ")
///    and accents split off as combining marks.
/// 2. Dropped: default-ignorable code points (zero-width space and joiner, soft hyphen, variation selectors),
///    nonspacing and enclosing marks (accents, stacked "Zalgo" marks), separators and whitespace (Z*), controls
///    and format characters (Cc, Cf), all punctuation (P*: `.` `-` `_` `'` `*` …), math and modifier symbols
///    (Sm, Sk: `+` `|` `~` `^` …). So "s p a m", "s.p.a.m" and "s-p-a-m" fold like "spam". Kept: letters, digits,
///    spacing marks (Mc, vowel signs of Indic scripts), currency and other symbols (`$`, emoji).
/// 3. Each scalar is mapped through `FoldTable` (ICU's case folding and TR39 skeleton), then step 2 again.
/// There are two folds: `caseless` (case first, every case of a word meets) and `asWritten` (look-alike first,
/// catching capitals such as Greek "Μ" whose lowercase looks like nothing Latin). A field contains a word when
/// either fold contains the word's same fold. Skeletons are prototypes, not readable text: "m" folds to "rn",
/// "0" to "o", "1" to "l" (a "|" is dropped in step 2 before it could become "l").
public struct BlacklistFold: Equatable, Sendable {
    /// Case folded, then look-alikes: "ILL" and "ill" meet.
    public let caseless: [Unicode.Scalar]
    /// Look-alikes of the letters as written, then case folded: "ΜΑΝ" (Greek capitals) and "man" meet.
    public let asWritten: [Unicode.Scalar]

    /// Folds `text` (any length; fields are capped at `Track.maxTextLength` before they get here).
    public init(_ text: String) {
        // ASCII is already NFKD: skip Foundation's normalization for the common case.
        let decomposed = text.utf8.allSatisfy { $0 < 0x80 } ? text : text.decomposedStringWithCompatibilityMapping
        var caseless: [Unicode.Scalar] = []
        var asWritten: [Unicode.Scalar] = []
        caseless.reserveCapacity(decomposed.utf8.count)
        asWritten.reserveCapacity(decomposed.utf8.count)
        for scalar in decomposed.unicodeScalars {
            if scalar.isASCII ? Self.asciiDrops[Int(scalar.value)] : Self.drops(scalar) { continue }
            if let entry = FoldTable.entry(for: scalar) {
                caseless += entry.caseless
                asWritten += entry.asWritten
            } else {
                caseless.append(scalar)
                asWritten.append(scalar)
            }
        }
        self.caseless = caseless
        self.asWritten = asWritten
    }

    /// Nothing left to match: a word of spaces, punctuation or marks only never blocks.
    public var isEmpty: Bool { caseless.isEmpty || asWritten.isEmpty }

    /// The caseless fold as text (tests, logs).
    public var text: String { String(String.UnicodeScalarView(caseless)) }

    /// Whether `word` occurs in this text in either fold; an empty word occurs nowhere.
    public func contains(_ word: BlacklistFold) -> Bool {
        !word.isEmpty && (Self.occurs(word.caseless, in: caseless) || Self.occurs(word.asWritten, in: asWritten))
    }

    /// A plain scan: fields are at most 500 characters and words short; the generic `Collection.contains(_:)`
    /// of the string-processing module cost ten times more per search result.
    private static func occurs(_ needle: [Unicode.Scalar], in haystack: [Unicode.Scalar]) -> Bool {
        guard needle.count <= haystack.count else { return false }
        let first = needle[0]
        for start in 0...(haystack.count - needle.count) where haystack[start] == first {
            var index = 1
            while index < needle.count && haystack[start + index] == needle[index] { index += 1 }
            if index == needle.count { return true }
        }
        return false
    }

    private static let asciiDrops: [Bool] = (0..<128).map { drops(Unicode.Scalar(UInt8($0))) }

    /// Step 2: characters that only separate, decorate or hide.
    static func drops(_ scalar: Unicode.Scalar) -> Bool {
        let properties = scalar.properties
        if properties.isDefaultIgnorableCodePoint { return true }
        switch properties.generalCategory {
        case .nonspacingMark, .enclosingMark,
             .spaceSeparator, .lineSeparator, .paragraphSeparator, .control, .format,
             .connectorPunctuation, .dashPunctuation, .openPunctuation, .closePunctuation,
             .initialPunctuation, .finalPunctuation, .otherPunctuation,
             .mathSymbol, .modifierSymbol:
            return true
        default:
            return false
        }
    }
}
