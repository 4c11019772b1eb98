import PartyCore

/// The built-in catalog of the `demo` provider: short synthesized songs the binary serves itself.
public enum DemoCatalog {
    struct Song {
        let title: String
        let artist: String
        let album: String
        let seconds: Int
        /// Root note (MIDI number) and tempo shape the synthesized melody.
        let rootNote: Int
        let beatsPerMinute: Int
    }

    static let songs: [Song] = [
        Song(title: "Sonnenaufgang am Kanal", artist: "Die Lichterketten", album: "Hafenlichter", seconds: 32, rootNote: 60, beatsPerMinute: 112),
        Song(title: "Neon Boulevard", artist: "Kasimir & The Tapes", album: "Night Drive", seconds: 28, rootNote: 57, beatsPerMinute: 124),
        Song(title: "Tanz auf dem Dach", artist: "Die Lichterketten", album: "Hafenlichter", seconds: 30, rootNote: 62, beatsPerMinute: 128),
        Song(title: "Paper Planes at Noon", artist: "Mira Holm", album: "Small Weather", seconds: 26, rootNote: 64, beatsPerMinute: 98),
        Song(title: "Kaffee um Mitternacht", artist: "Trio Nachtschicht", album: "Spätdienst", seconds: 34, rootNote: 55, beatsPerMinute: 90),
        Song(title: "Glitter & Gravel", artist: "The Velvet Ferries", album: "Low Tide", seconds: 29, rootNote: 59, beatsPerMinute: 132),
        Song(title: "Fahrradklingel-Funk", artist: "Kasimir & The Tapes", album: "Night Drive", seconds: 27, rootNote: 61, beatsPerMinute: 118),
        Song(title: "Wolken aus Zucker", artist: "Mira Holm", album: "Small Weather", seconds: 31, rootNote: 65, beatsPerMinute: 104),
        Song(title: "Disco im Treppenhaus", artist: "Die Hausmeister", album: "Erdgeschoss", seconds: 33, rootNote: 58, beatsPerMinute: 126),
        Song(title: "Polaroid Summer", artist: "The Velvet Ferries", album: "Low Tide", seconds: 28, rootNote: 63, beatsPerMinute: 110),
        Song(title: "Bahnsteig 9", artist: "Trio Nachtschicht", album: "Spätdienst", seconds: 30, rootNote: 56, beatsPerMinute: 96),
        Song(title: "Marmalade Skies", artist: "Juno Park", album: "Orange Hours", seconds: 26, rootNote: 66, beatsPerMinute: 120),
        Song(title: "Der letzte Bus", artist: "Die Hausmeister", album: "Erdgeschoss", seconds: 35, rootNote: 54, beatsPerMinute: 88),
        Song(title: "Satellite Heart", artist: "Juno Park", album: "Orange Hours", seconds: 29, rootNote: 60, beatsPerMinute: 136),
        Song(title: "Regen auf Blech", artist: "Ella Sturm", album: "Wetterleuchten", seconds: 32, rootNote: 57, beatsPerMinute: 100),
        Song(title: "Balcony Tango", artist: "Los Gatos Tranquilos", album: "Siesta Club", seconds: 30, rootNote: 62, beatsPerMinute: 116),
        Song(title: "Funkelnde Fliesen", artist: "Ella Sturm", album: "Wetterleuchten", seconds: 27, rootNote: 64, beatsPerMinute: 122),
        Song(title: "Midnight Karaoke", artist: "Los Gatos Tranquilos", album: "Siesta Club", seconds: 31, rootNote: 59, beatsPerMinute: 108),
        Song(title: "Schnee im Juli", artist: "Mira Holm", album: "Small Weather", seconds: 28, rootNote: 67, beatsPerMinute: 94),
        Song(title: "Rollschuh-Romanze", artist: "Die Lichterketten", album: "Hafenlichter", seconds: 33, rootNote: 61, beatsPerMinute: 130),
        Song(title: "Velvet Elevator", artist: "The Velvet Ferries", album: "Low Tide", seconds: 29, rootNote: 58, beatsPerMinute: 102),
        Song(title: "Späti-Serenade", artist: "Trio Nachtschicht", album: "Spätdienst", seconds: 26, rootNote: 63, beatsPerMinute: 114),
        Song(title: "Konfetti-Kanone", artist: "Die Hausmeister", album: "Erdgeschoss", seconds: 30, rootNote: 65, beatsPerMinute: 140),
        Song(title: "Golden Hour Loop", artist: "Juno Park", album: "Orange Hours", seconds: 32, rootNote: 56, beatsPerMinute: 106),
    ]

    public static let uriPrefix = "demo:track:"

    /// The catalog as tracks; covers and audio are served under `/demo/`.
    public static let tracks: [Track] = songs.enumerated().map { index, song in
        let number = String(index + 1)
        return Track(
            id: number, uri: uriPrefix + number, name: song.title, artists: [song.artist],
            album: song.album, imageURL: "/demo/cover/\(number).png", durationMs: song.seconds * 1000)
    }

    /// The 1-based catalog number in a `demo:track:N` uri (canonical digits only: no sign, no leading zero).
    public static func number(of uri: String) -> Int? {
        guard uri.hasPrefix(uriPrefix) else { return nil }
        let digits = uri.dropFirst(uriPrefix.count)
        return validNumber(digits)
    }

    /// The one bounds check for every demo number from a request (uri, track id, audio or cover file name):
    /// canonical digits within the catalog, so no arithmetic on a hostile number can overflow.
    public static func validNumber<S: StringProtocol>(_ text: S) -> Int? {
        guard let number = Int(boundedDigits: text, in: 1...songs.count, maxDigits: 3), String(number) == text else { return nil }
        return number
    }

    static func song(number: Int) -> Song? {
        (1...songs.count).contains(number) ? songs[number - 1] : nil
    }
}
