import Foundation

/// The app's own texts, German (base) and English; the device language picks one. A missing English text falls
/// back to German, never to the raw key. Server messages are shown as they come and never pass through here.
public struct KitStrings: Sendable {
    public let language: String
    private let tables: [String: [Key: String]]

    public init(preferredLanguages: [String] = Locale.preferredLanguages) {
        self.init(preferredLanguages: preferredLanguages, tables: Self.tables)
    }

    init(preferredLanguages: [String], tables: [String: [Key: String]]) {
        let first = preferredLanguages.first.map { String($0.prefix(2)).lowercased() } ?? "de"
        language = tables[first] == nil ? "de" : first
        self.tables = tables
    }

    /// The text in the chosen language, else the German one; a key missing in both is a bug shown as "".
    public subscript(_ key: Key) -> String { tables[language]?[key] ?? tables["de"]?[key] ?? "" }

    public enum Key: String, Sendable, CaseIterable {
        case searchFailed, backendUnreachable, noDevice, noDeviceHint, nowPlaying, nothingPlaying, upNext, queueEmpty
        case play, pause, skip, remove, like, added, partyEnded, wrongPin, stalledNoMonitor, stalledAutoplay
        case stalledSilent, stalledProvider, preview, searchPrompt, topTen, autofilled
        /// R35.
        case awaitingApproval, nothingAwaitsApproval, approved, declined
        /// R36.
        case nicknameSet, nicknameCleared
    }

    static let tables: [String: [Key: String]] = [
        "de": [
            .searchFailed: "Suche fehlgeschlagen. Bitte erneut versuchen.",
            .backendUnreachable: "Backend nicht erreichbar. Bitte Backend starten und erneut versuchen.",
            .noDevice: "Kein Wiedergabegerät verbunden.", .noDeviceHint: "Öffne den Monitor auf dem Fernseher, dann geht es los.",
            .nowPlaying: "Läuft gerade", .nothingPlaying: "Gerade läuft nichts.", .upNext: "Als Nächstes",
            .queueEmpty: "Warteschlange ist leer", .play: "Abspielen", .pause: "Pause", .skip: "Überspringen", .remove: "Entfernen",
            .like: "Gefällt mir", .added: "Hinzugefügt!", .partyEnded: "Die Party ist vorbei.", .wrongPin: "Falsche PIN.",
            .stalledNoMonitor: "Kein Fernseher verbunden.", .stalledAutoplay: "Der Fernseher wartet auf einen Tipp auf „Musik starten“.",
            .stalledSilent: "Der Fernseher meldet sich nicht.", .stalledProvider: "Der Player des Fernsehers meldet einen Fehler.",
            .preview: "Als Erstes", .searchPrompt: "Song suchen", .topTen: "Top 10", .autofilled: "automatisch",
            .awaitingApproval: "Wartet auf Freigabe:", .nothingAwaitsApproval: "Gerade wartet kein Song auf Freigabe.",
            .approved: "Freigegeben:", .declined: "Abgelehnt:",
            .nicknameSet: "Dein Spitzname:", .nicknameCleared: "Du bist wieder anonym.",
        ],
        "en": [
            .searchFailed: "Search failed. Please try again.",
            .backendUnreachable: "Cannot reach the server. Please start it and try again.",
            .noDevice: "No playback device connected.", .noDeviceHint: "Open the monitor on the TV to get going.",
            .nowPlaying: "Now playing", .nothingPlaying: "Nothing is playing.", .upNext: "Up next",
            .queueEmpty: "The queue is empty", .play: "Play", .pause: "Pause", .skip: "Skip", .remove: "Remove",
            .like: "Like", .added: "Added!", .partyEnded: "The party is over.", .wrongPin: "Wrong PIN.",
            .stalledNoMonitor: "No TV connected.", .stalledAutoplay: "The TV is waiting for a tap on “Start the music”.",
            .stalledSilent: "The TV is not responding.", .stalledProvider: "The TV's player reports an error.",
            .preview: "First up", .searchPrompt: "Search songs", .topTen: "Top 10", .autofilled: "auto",
            .awaitingApproval: "Waiting for approval:", .nothingAwaitsApproval: "No song is waiting for approval.",
            .approved: "Approved:", .declined: "Declined:",
            .nicknameSet: "Your nickname:", .nicknameCleared: "You are anonymous again.",
        ],
    ]
}
