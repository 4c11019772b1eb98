import Foundation

/// R10a's text rules: fold case and accents, drop qualifiers in brackets or after " - " and "feat. X", keep only
/// letters and digits. docs/rules.md (R10a) lists what this does not catch.
extension SongIdentity {
    /// Separators after which a title carries a qualifier ("Remastered 2011", "Radio Edit") or, on YouTube, the title
    /// itself ("Lynyrd Skynyrd - Free Bird").
    static let dashes = [" - ", " – ", " — ", " | "]
    /// "feat. X" outside brackets ends the title or artist.
    static let featuring = [" feat. ", " feat ", " ft. ", " ft ", " featuring "]
    /// What video channels add to an artist's name ("Lynyrd Skynyrd - Topic", "LynyrdSkynyrdVEVO").
    static let channelSuffixes = ["vevo", "topic", "official"]

    static func artistKey(_ artist: String) -> String {
        var key = compact(beforeFeaturing(withoutBrackets(fold(artist))))
        var stripped = true
        while stripped {
            stripped = false
            for suffix in channelSuffixes where key.hasSuffix(suffix) && key.count > suffix.count {
                key.removeLast(suffix.count)
                stripped = true
            }
        }
        return key.isEmpty ? compact(fold(artist)) : key
    }

    /// The title without qualifiers; when the part before the first dash is the artist (videos name it there),
    /// the part after it.
    static func titleKey(_ title: String, artist: String) -> String {
        let folded = fold(title)
        var segments = [beforeFeaturing(withoutBrackets(folded))]
        for dash in dashes { segments = segments.flatMap { $0.components(separatedBy: dash) } }
        let keys = segments.map(compact).filter { !$0.isEmpty }
        guard let first = keys.first else { return compact(folded) }
        if keys.count >= 2, first == artist { return keys[1] }
        return first
    }

    static func fold(_ text: String) -> String {
        " " + text.folding(options: [.caseInsensitive, .diacriticInsensitive, .widthInsensitive], locale: nil) + " "
    }

    /// Drops everything inside (), [] and {} (nested too).
    static func withoutBrackets(_ text: String) -> String {
        var depth = 0
        var kept = ""
        for character in text {
            switch character {
            case "(", "[", "{": depth += 1; kept.append(" ")
            case ")", "]", "}": depth = max(0, depth - 1)
            default: if depth == 0 { kept.append(character) }
            }
        }
        return kept
    }

    static func beforeFeaturing(_ text: String) -> String {
        var text = text
        for marker in featuring {
            if let range = text.range(of: marker) { text = String(text[..<range.lowerBound]) + " " }
        }
        return text
    }

    /// Letters and digits only: "Free Bird" and "Freebird", "AC/DC" and "ACDC" are equal.
    static func compact(_ text: String) -> String {
        String(text.filter { $0.isLetter || $0.isNumber })
    }
}
