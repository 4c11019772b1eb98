import Foundation

/// Case- and accent-insensitive matching, shared by the providers that search in memory.
enum SearchText {
    static func folded(_ text: String) -> String {
        text.folding(options: [.caseInsensitive, .diacriticInsensitive], locale: nil)
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Whether any of `fields` contains the folded `query`.
    static func matches(_ query: String, _ fields: [String]) -> Bool {
        let needle = folded(query)
        return fields.contains { folded($0).contains(needle) }
    }
}
