import Foundation
import PartyCore
import Testing
@testable import Providers

/// A WAV whose title and artist are only in its RIFF `LIST/INFO` chunk (Windows, most editors).
@Suite("WAV RIFF INFO tags")
struct RiffInfoTests {
    static func le32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8((value >> (8 * $0)) & 0xFF) } }

    /// A one-second 8-bit WAV with an INFO list before its audio (`fields`: id → raw bytes of the value).
    static func wav(info fields: [(String, [UInt8])], listSize: Int? = nil) -> [UInt8] {
        var list = Array("INFO".utf8)
        for (id, value) in fields {
            let padded = value + [0] + (value.count % 2 == 0 ? [0] : [])
            list += Array(id.utf8) + le32(value.count + 1) + padded
        }
        let samples = [UInt8](repeating: 128, count: 8000)
        let format = Array("fmt ".utf8) + le32(16) + [1, 0, 1, 0] + le32(8000) + le32(8000) + [1, 0, 8, 0]
        let body = Array("WAVE".utf8) + format + Array("LIST".utf8) + le32(listSize ?? list.count) + list
            + Array("data".utf8) + le32(samples.count) + samples
        return Array("RIFF".utf8) + le32(body.count) + body
    }

    static func write(_ bytes: [UInt8], name: String, in folder: URL) throws -> String {
        let path = folder.appendingPathComponent(name).path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        return path
    }

    let folder: URL

    init() throws {
        folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-riff-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    }

    @Test func aWavWithOnlyRiffInfoTagsIsFoundByItsTitleAndArtist() throws {
        _ = try Self.write(Self.wav(info: [("INAM", Array("Straßenfest".utf8)), ("IART", Array("Jürgen & die Nachbarn".utf8)),
                                           ("IPRD", Array("Sommer".utf8)), ("ICMT", Array("recorded live".utf8))]),
                           name: "take-03.wav", in: folder)
        let provider = LocalProvider(library: LocalLibrary(root: folder))
        let track = try #require(provider.library.tracks.first)
        #expect(track.name == "Straßenfest" && track.artists == ["Jürgen & die Nachbarn"] && track.album == "Sommer")
        #expect(try provider.search("straßenfest").map(\.name) == ["Straßenfest"], "found by its title")
        #expect(try provider.search("nachbarn").map(\.name) == ["Straßenfest"], "found by its artist")
    }

    @Test func latin1ValuesOfOlderToolsAreRead() throws {
        let path = try Self.write(Self.wav(info: [("INAM", [0x4B, 0xE4, 0x73, 0x65]), ("IART", Array("Caf".utf8) + [0xE9])]),
                                  name: "old.wav", in: folder)
        #expect(RiffInfo(path: path) == RiffInfo(title: "Käse", artist: "Café", album: ""))
    }

    @Test func brokenOrHostileFilesYieldNothing() throws {
        let good = Self.wav(info: [("INAM", Array("Titel".utf8))])
        let truncated = try Self.write(Array(good.prefix(60)), name: "truncated.wav", in: folder)
        let huge = try Self.write(Self.wav(info: [("INAM", Array("Titel".utf8))], listSize: 0x7FFF_FFF0), name: "huge.wav", in: folder)
        var lying = Self.wav(info: [("INAM", Array("Titel".utf8))])
        lying.replaceSubrange(52..<56, with: Self.le32(5000))  // INAM claims more bytes than the list holds
        let liar = try Self.write(lying, name: "liar.wav", in: folder)
        let notWav = try Self.write(Array("RIFF0000AVI LIST".utf8), name: "video.wav", in: folder)
        #expect(RiffInfo(path: truncated) == nil)
        #expect(RiffInfo(path: huge) == nil)
        #expect(RiffInfo(path: liar) == nil)
        #expect(RiffInfo(path: notWav) == nil)
        #expect(RiffInfo(path: folder.appendingPathComponent("missing.wav").path) == nil)
    }
}
