import Foundation
import PartyTestSupport
import Testing

/// The host banned a word and a guest got 10 of 13 disguises of it into the queue (full-width letters,
/// hidden characters, combining marks, look-alike letters of other scripts, spaced letters, mathematical letters;
/// the album was not checked). The songs come from a local library of WAV files whose RIFF INFO tags the test
/// writes, so every title, artist and album is the attacker's.
@Suite("Attack: a blacklisted word in disguise is refused (R12)")
struct BlacklistDisguiseAttackTests {
    /// (title, artist, album); the album carries the search key "Probe NN".
    static let disguised: [(title: String, artist: String, album: String)] = [
        ("ＳＰＡＭ Radio", "DJ", "Probe 01"),
        ("Sp\u{200B}am Song", "DJ", "Probe 02"),
        ("S\u{200D}p\u{200D}am", "DJ", "Probe 03"),
        ("Sp\u{00AD}am", "DJ", "Probe 04"),
        ("S\u{0301}p\u{0308}a\u{0336}m\u{0323}", "DJ", "Probe 05"),
        ("\u{0405}\u{0420}\u{0410}\u{041C} \u{0455}\u{0440}\u{0430}m", "DJ", "Probe 06"),
        ("S\u{03A1}\u{0391}\u{039C}", "DJ", "Probe 07"),
        ("\u{13DA}\u{13E2}\u{13AA}\u{13B7}", "DJ", "Probe 08"),
        ("S p a m", "DJ", "Probe 09"),
        ("s.p.a.m / s-p-a-m", "DJ", "Probe 10"),
        ("\u{1D412}\u{1D40F}\u{1D400}\u{1D40C}", "DJ", "Probe 11"),
        ("sPaM", "DJ", "Probe 12"),
        ("Harmless", "The Ｓ\u{200B}pams", "Probe 13"),
        ("Harmless", "DJ", "Probe 14 Best of S p\u{00AD}a m"),
    ]

    static let harmless: [(title: String, artist: String, album: String)] = [
        ("Sparkling Water", "DJ", "Probe 15"),
        ("Pasta Milano", "Sam & Pam", "Probe 16"),
    ]

    @Test func disguisedTitlesArtistsAndAlbumsAreRefusedAndMarkedBlocked() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-disguise-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        for (index, song) in (Self.disguised + Self.harmless).enumerated() {
            try Data(Self.wav(title: song.title, artist: song.artist, album: song.album))
                .write(to: folder.appendingPathComponent("song-\(index).wav"))
        }
        let server = try InProcessServer { $0.libraryDirectory = folder.path }
        let party = try TestParty(server, provider: "local")
        #expect(try party.host("PUT", "/blacklist", json: ["word": "Spam"]).status == 200)

        let search = try party.client.get("\(party.base)/track/search?q=probe")
        let items = ((search.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]]) ?? []
        var byAlbum: [String: [String: Any]] = [:]
        for item in items { byAlbum[(item["album"] as? [String: Any])?["name"] as? String ?? ""] = item }
        #expect(byAlbum.count == Self.disguised.count + Self.harmless.count, "every song is in the library")

        for (index, song) in Self.disguised.enumerated() {
            let item = try #require(byAlbum[song.album], "\(song.album)")
            #expect(item["blocked"] as? Bool == true, "search marks \(song.title) / \(song.artist) / \(song.album)")
            // A guest of its own per add: the refusal is the blacklist, never a rate limit.
            let add = try party.client.from("127.0.23.\(index + 1)").send(
                "POST", "\(party.base)/track/addToPlaylist", json: ["uri": item["uri"] as? String ?? "", "deviceId": "attacker-\(index)"])
            #expect(add.status == 403 && add.error == "Nicht erlaubt.", "\(song.title) / \(song.artist) / \(song.album): \(add.status)")
        }
        for (index, song) in Self.harmless.enumerated() {
            let item = try #require(byAlbum[song.album], "\(song.album)")
            #expect(item["blocked"] == nil, "\(song.title)")
            let add = try party.client.from("127.0.24.\(index + 1)").send(
                "POST", "\(party.base)/track/addToPlaylist", json: ["uri": item["uri"] as? String ?? "", "deviceId": "guest-\(index)"])
            #expect(add.status == 200, "\(song.title): \(add.status) \(add.text)")
        }
        #expect(try party.queue().count == Self.harmless.count)
    }

    /// A short 8-bit mono WAV whose RIFF `LIST/INFO` chunk holds title (INAM), artist (IART) and album (IPRD) as UTF-8.
    static func wav(title: String, artist: String, album: String) -> [UInt8] {
        func littleEndian(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }
        func chunk(_ id: String, _ payload: [UInt8]) -> [UInt8] {
            Array(id.utf8) + littleEndian(payload.count) + payload + (payload.count % 2 == 1 ? [0] : [])
        }
        let info = Array("INFO".utf8) + chunk("INAM", Array(title.utf8) + [0]) + chunk("IART", Array(artist.utf8) + [0])
            + chunk("IPRD", Array(album.utf8) + [0])
        let format = littleEndian(1 << 16 | 1) + littleEndian(8000) + littleEndian(8000) + littleEndian(8 << 16 | 1)
        let body = Array("WAVE".utf8) + chunk("fmt ", format) + chunk("LIST", info)
            + chunk("data", [UInt8](repeating: 128, count: 4000))
        return Array("RIFF".utf8) + littleEndian(body.count) + body
    }
}
