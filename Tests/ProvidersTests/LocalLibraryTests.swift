import Foundation
import PartyCore
import Testing
@testable import Providers

/// Writes a short mono 8-bit WAV of `seconds` and, when given, tags it through TagLib.
func makeSong(at path: String, seconds: Int, title: String? = nil, artist: String = "", album: String = "") throws {
    let rate = 8000, count = seconds * rate
    func le32(_ value: Int) -> [UInt8] { (0..<4).map { (byte: Int) -> UInt8 in UInt8((value >> (8 * byte)) & 0xFF) } }
    func le16(_ value: Int) -> [UInt8] { (0..<2).map { (byte: Int) -> UInt8 in UInt8((value >> (8 * byte)) & 0xFF) } }
    let parts: [[UInt8]] = [Array("RIFF".utf8), le32(36 + count), Array("WAVEfmt ".utf8), le32(16), le16(1), le16(1),
                            le32(rate), le32(rate), le16(1), le16(8), Array("data".utf8), le32(count)]
    let header: [UInt8] = parts.flatMap { $0 }
    let samples = (0..<count).map { UInt8(128 + Int(60 * sin(Double($0) * 0.2))) }
    try Data(header + samples).write(to: URL(fileURLWithPath: path))
    if let title {
        _ = TagFile.unicode
        let file = try #require(TagFile(path: path))
        #expect(file.write(title: title, artist: artist, album: album))
    }
}

@Suite("Local folder provider")
struct LocalLibraryTests {
    let root: URL

    init() throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("mv-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root.appendingPathComponent("Sommer Mix/Teil 2"), withIntermediateDirectories: true)
        try makeSong(at: root.appendingPathComponent("Sommer Mix/01.wav").path, seconds: 3,
                     title: "Café del Mar", artist: "Señor Björk", album: "Strandgut")
        try makeSong(at: root.appendingPathComponent("Sommer Mix/Teil 2/untagged song.wav").path, seconds: 2)
        try makeSong(at: root.appendingPathComponent("top.wav").path, seconds: 4, title: "Ganz oben", artist: "Dach", album: "Haus")
        try Data([0xFF, 0xD8, 0xFF]).write(to: root.appendingPathComponent("Sommer Mix/cover.jpg"))
        try Data("not music".utf8).write(to: root.appendingPathComponent("notes.txt"))
        try Data("garbage".utf8).write(to: root.appendingPathComponent("broken.mp3"))
    }

    @Test func tagsTitlesAndDurationsComeFromTheFiles() throws {
        let library = LocalLibrary(root: root)
        let tracks = library.tracks
        let cafe = try #require(tracks.first { $0.name == "Café del Mar" })
        #expect(cafe.artists == ["Señor Björk"] && cafe.album == "Strandgut" && cafe.durationMs == 3000)
        #expect(cafe.imageURL == "/local/cover/\(cafe.id)", "cover.jpg beside the file")
        let untagged = try #require(tracks.first { $0.name == "untagged song" }, "file name when there is no title tag")
        #expect(untagged.artists.isEmpty && untagged.album == "Sommer Mix/Teil 2" && untagged.durationMs == 2000)
        #expect(untagged.imageURL == nil)
        #expect(!tracks.contains { $0.name == "notes" })
        #expect(tracks.contains { $0.name == "broken" }, "an unreadable file still shows by name")
        #expect(LocalLibrary(root: root).tracks.map(\.id) == tracks.map(\.id), "ids are stable across scans")
    }

    @Test func searchCoversTitleArtistAndAlbumIgnoringAccentsAndCase() throws {
        let provider = LocalProvider(library: LocalLibrary(root: root))
        #expect(try provider.search("cafe").map(\.name) == ["Café del Mar"])
        #expect(try provider.search("BJORK").count == 1)
        #expect(try provider.search("strandgut").count == 1)
        #expect(try provider.search("").count == 4)
        let track = try #require(try provider.search("oben").first)
        #expect(try provider.track(uri: track.uri) == track)
        #expect(try provider.track(uri: "local:track:nope") == nil)
        #expect(try provider.track(uri: "demo:track:1") == nil)
    }

    @Test func newFilesAppearAfterARescan() throws {
        let library = LocalLibrary(root: root)
        #expect(library.tracks.count == 4)
        try makeSong(at: root.appendingPathComponent("new.wav").path, seconds: 1, title: "Neu", artist: "A", album: "B")
        library.rescan()
        #expect(library.tracks.contains { $0.name == "Neu" })
    }

    @Test func foldersAreThePlaylists() throws {
        let provider = LocalProvider(library: LocalLibrary(root: root))
        let playlists = try provider.playlists()
        #expect(playlists.map(\.name) == ["Sommer Mix", "Sommer Mix/Teil 2"])
        #expect(try provider.playlistTracks(id: playlists[0].id).map(\.name) == ["Café del Mar"])
        #expect(try provider.charts().count == 4)
    }
}

@Suite("The music folder is never left")
struct LibraryEscapeTests {
    @Test(.timeLimit(.minutes(1))) func linksOutOfTheLibraryLoopsAndDotFilesAreSkipped() throws {
        let manager = FileManager.default
        let root = manager.temporaryDirectory.appendingPathComponent("mv-escape-\(UUID().uuidString)")
        let outside = manager.temporaryDirectory.appendingPathComponent("mv-outside-\(UUID().uuidString)")
        try manager.createDirectory(at: root.appendingPathComponent("Album/Inner"), withIntermediateDirectories: true)
        try manager.createDirectory(at: outside, withIntermediateDirectories: true)
        try makeSong(at: root.appendingPathComponent("Album/song.wav").path, seconds: 1, title: "Drinnen", artist: "A", album: "B")
        try makeSong(at: outside.appendingPathComponent("secret.wav").path, seconds: 1, title: "Draußen", artist: "A", album: "B")
        try Data("secret cover".utf8).write(to: outside.appendingPathComponent("shadow.jpg"))
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("leak.mp3").path, withDestinationPath: "/etc/passwd")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Album/cover.jpg").path,
                                       withDestinationPath: outside.appendingPathComponent("shadow.jpg").path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Outside").path, withDestinationPath: outside.path)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Album/Inner/up").path, withDestinationPath: "../..")
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Album/again").path, withDestinationPath: ".")
        try makeSong(at: root.appendingPathComponent(".hidden.wav").path, seconds: 1)
        try manager.createSymbolicLink(atPath: root.appendingPathComponent("Album/alias.wav").path, withDestinationPath: "song.wav")

        let library = LocalLibrary(root: root)
        let names = Set(library.tracks.map(\.name))
        #expect(!names.contains("leak") && !names.contains("Draußen") && !names.contains(".hidden"), "\(names)")
        #expect(names.contains("Drinnen"))
        let real = try #require(LibraryWalk.realPath(root.path))
        for track in library.tracks {
            let item = try #require(library.item(id: track.id))
            #expect(item.path.hasPrefix(real + "/"), "\(item.path)")
            #expect(item.coverPath == nil, "the cover link points outside the library")
        }
        #expect(library.tracks.count == 2, "song.wav and the alias inside the library, once each folder: \(names)")
    }
}
