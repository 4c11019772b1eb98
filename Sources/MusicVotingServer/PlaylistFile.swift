import Foundation
import JSONKit
import PartyCore
import Providers

/// R32: songs as a file a music player opens. Each song is where a player outside the party finds it: the audio this
/// server serves (demo, local library) as an absolute URL on the public URL, other services' songs as their own page.
struct PlaylistFile {
    struct Item {
        var track: Track
        var location: String
    }

    let title: String
    let items: [Item]

    init(title: String, tracks: [Track], provider: any MusicProvider, base: String) {
        self.title = title
        items = tracks.map { Item(track: $0, location: Self.location(of: $0, provider: provider, base: base)) }
    }

    /// The same paths the TV's players load (Public/js/players/index.js), on the public URL.
    static func location(of track: Track, provider: any MusicProvider, base: String) -> String {
        if let open = provider.openURL(of: track) { return open }
        let id = track.id.addingPercentEncoding(withAllowedCharacters: .urlPathAllowed.subtracting(CharacterSet(charactersIn: "/"))) ?? track.id
        return provider.name == "local" ? base + "/local/audio/" + id : base + "/demo/audio/" + id + ".wav"
    }

    /// Extended M3U in UTF-8: `#EXTINF:<seconds>,<artists> - <title>` above each location.
    var m3u8: String {
        var lines = ["#EXTM3U", "#PLAYLIST:" + Self.oneLine(title)]
        for item in items {
            let artists = item.track.artists.joined(separator: ", ")
            let label = artists.isEmpty ? item.track.name : artists + " - " + item.track.name
            lines.append("#EXTINF:\(item.track.durationMs / 1000),\(Self.oneLine(label))")
            lines.append(item.location)
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// JSPF (XSPF as JSON): `{"playlist": {"title", "track": [{"location": [url], "title", "creator", "album", "duration"}]}}`.
    var jspf: JSON {
        let tracks: [JSON] = items.map { item in
            .object([
                ("location", .array([.string(item.location)])), ("title", .string(item.track.name)),
                ("creator", .string(item.track.artists.joined(separator: ", "))), ("album", .string(item.track.album)),
                ("duration", .integer(item.track.durationMs)),
            ])
        }
        return ["playlist": .object([("title", .string(title)), ("track", .array(tracks))])]
    }

    /// A provider's text never breaks the file's lines (a title with a line break would start a line of its own).
    private static func oneLine(_ text: String) -> String {
        String(text.map { $0.isNewline ? " " : $0 })
    }

    /// `MusicVoting <date>`: the name of a saved playlist and of an exported file.
    static func name(at date: Date) -> String {
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.dateFormat = "yyyy-MM-dd"
        return "MusicVoting " + formatter.string(from: date)
    }
}
