import Foundation

/// A song as every provider describes it; the API renders it in Spotify's track shape.
public struct Track: Equatable, Hashable, Sendable, Codable {
    public var id: String
    public var uri: String
    public var name: String
    public var artists: [String]
    public var album: String
    public var imageURL: String?
    public var durationMs: Int
    /// R10a: the recording's ISRC when the provider gives one (Spotify's `external_ids.isrc`).
    public var isrc: String?

    /// Longest title, artist or album kept; a 200 kB title from a hostile tag or upstream overflowed every
    /// event stream of the party. Ten artists at most, for the same reason.
    public static let maxTextLength = 500
    public static let maxArtists = 10

    public init(id: String, uri: String, name: String, artists: [String], album: String, imageURL: String?, durationMs: Int,
                isrc: String? = nil) {
        self.id = id
        self.uri = uri
        self.name = Self.capped(name)
        self.artists = artists.prefix(Self.maxArtists).map(Self.capped)
        self.album = Self.capped(album)
        self.imageURL = imageURL.flatMap { $0.utf8.count <= 2_048 ? $0 : nil }
        self.durationMs = max(0, durationMs)
        self.isrc = isrc.flatMap { $0.isEmpty || $0.utf8.count > 32 ? nil : $0.uppercased() }
    }

    /// Capped, and without bidirectional controls: an override shows its letters in another order than they are
    /// stored ("\u{202E}maps" reads "spam"), so R12's blacklist, which reads them as stored, would pass a word every
    /// screen shows. Without the controls, the screens show what the blacklist read.
    private static func capped(_ text: String) -> String {
        let plain = text.unicodeScalars.contains(where: isBidiControl)
            ? String(String.UnicodeScalarView(text.unicodeScalars.filter { !isBidiControl($0) })) : text
        return plain.count <= maxTextLength ? plain : String(plain.prefix(maxTextLength - 1)) + "…"
    }

    /// ALM, LRM, RLM, the embeddings and overrides (LRE…RLO) and the isolates (LRI…PDI).
    static func isBidiControl(_ scalar: Unicode.Scalar) -> Bool {
        switch scalar.value {
        case 0x061C, 0x200E, 0x200F, 0x202A...0x202E, 0x2066...0x2069: true
        default: false
        }
    }
}
