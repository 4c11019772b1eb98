import Foundation
import HTTPServer
import JSONKit

/// The UI strings per language (one catalog file each, German the base). English falls back to German
/// key by key, so a missing translation shows German text, never a raw key.
struct Localization: Sendable {
    static let base = "de"
    static let languages = ["de", "en"]
    private let catalogs: [String: [String: String]]

    enum LoadError: Error, CustomStringConvertible {
        case unreadable(String)
        var description: String {
            switch self { case .unreadable(let path): return "cannot read string catalog \(path)" }
        }
    }

    /// `files`: Templates/ by path below it; the catalogs are `locales/<language>.json`.
    init(files: [String: [UInt8]]) throws {
        var catalogs: [String: [String: String]] = [:]
        for language in Self.languages {
            let path = "locales/\(language).json"
            guard let bytes = files[path], case .object(let members) = try? JSON.parse(bytes)
            else { throw LoadError.unreadable(path) }
            catalogs[language] = Dictionary(members.compactMap { key, value in value.stringValue.map { (key, $0) } },
                                            uniquingKeysWith: { _, last in last })
        }
        let base = catalogs[Self.base] ?? [:]
        self.catalogs = catalogs.mapValues { base.merging($0, uniquingKeysWith: { _, translated in translated }) }
    }

    func strings(for language: String) -> [String: String] { catalogs[language] ?? catalogs[Self.base] ?? [:] }

    /// The best language of `Accept-Language` (quality values honoured); unknown → German.
    static func language(acceptLanguage header: String?) -> String {
        guard let header else { return base }
        var best: (language: String, quality: Double)?
        for part in header.split(separator: ",") {
            let pieces = part.split(separator: ";").map { $0.trimmingCharacters(in: .whitespaces) }
            guard let tag = pieces.first?.lowercased(), !tag.isEmpty else { continue }
            let primary = String(tag.split(separator: "-").first ?? "")
            let quality = pieces.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            guard languages.contains(primary), quality > 0 else { continue }
            // Strictly greater: on equal quality the earlier entry wins, as the header lists preferences in order.
            if quality > (best?.quality ?? 0) { best = (primary, quality) }
        }
        return best?.language ?? base
    }
}
