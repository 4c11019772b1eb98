import Foundation
import PartyTestSupport
import Testing

@Suite("Provider local (--library)")
struct LocalLibraryEndToEndTests {
    @Test func aLocalPartySearchesQueuesAndStreamsTheFiles() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-e2e-library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder.appendingPathComponent("Album"), withIntermediateDirectories: true)
        let song = [UInt8](repeating: 7, count: 50_000)
        try Data(Array("RIFF".utf8) + song).write(to: folder.appendingPathComponent("Album/Übermut.wav"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: folder.appendingPathComponent("Album/cover.png"))
        let server = try InProcessServer { $0.libraryDirectory = folder.path }
        #expect(try server.client.get("/").text.contains("value=\"local\""), "the start page offers the configured library")
        let party = try TestParty(server, provider: "local")
        let found = try party.client.get("\(party.base)/track/search?q=ubermut")
        let item = try #require(((found.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]])?.first)
        let uri = try #require(item["uri"] as? String)
        #expect(uri.hasPrefix("local:track:") && item["name"] as? String == "Übermut")
        let cover = try #require(((item["album"] as? [String: Any])?["images"] as? [[String: Any]])?.first?["url"] as? String)
        let coverURL = try #require(URLComponents(string: cover))
        #expect(cover.hasPrefix(InProcessServer.publicURL + "/local/cover/"), "absolute (the iOS app loads it as it is): \(cover)")
        #expect(try party.client.get(coverURL.path).header("content-type") == "image/png")
        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": uri, "deviceId": "g"]).status == 200)
        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:1", "deviceId": "g"]).status == 404,
                "R13: only the party's own provider")
        let id = String(uri.dropFirst("local:track:".count))
        let whole = try party.client.get("/local/audio/\(id)")
        #expect(whole.status == 200 && whole.body.count == song.count + 4 && whole.header("content-type") == "audio/wav")
        let part = try party.client.get("/local/audio/\(id)", headers: ["Range": "bytes=4-103"])
        #expect(part.status == 206 && part.body == Array(song.prefix(100)))
        #expect(part.header("content-range") == "bytes 4-103/\(song.count + 4)")
        #expect(try party.client.get("/local/audio/../../etc/passwd").status == 404)

        try Data(Array("RIFF".utf8) + song).write(to: folder.appendingPathComponent("Neuzugang.wav"))
        #expect(try party.client.send("POST", "\(party.base)/library/rescan").status == 401)
        let rescan = try party.host("POST", "/library/rescan")
        #expect(rescan.status == 200 && rescan.json["tracks"] as? Int == 2)
        let fresh = try party.client.get("\(party.base)/track/search?q=neuzugang")
        #expect((((fresh.json["tracks"] as? [String: Any])?["items"]) as? [Any])?.count == 1, "a new file appears after a rescan")
    }

    @Test func withoutALibraryTheLocalProviderIsNotConfigured() throws {
        let server = try InProcessServer()
        #expect(!(try server.client.get("/").text.contains("value=\"local\"")))
        let party = try TestParty(server, provider: "local")
        let search = try party.client.get("\(party.base)/track/search?q=")
        #expect(search.status == 503 && search.error == "Anbieter nicht konfiguriert.")
    }
}

@Suite("Attack: library files only for a local party")
struct LocalFileExposureAttackTests {
    @Test func audioIsServedOnlyForQueuedSongsAndCoversOnlyWhileALocalPartyRuns() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-expose-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        try Data(Array("RIFF".utf8) + [UInt8](repeating: 1, count: 400)).write(to: folder.appendingPathComponent("Lied.wav"))
        try Data([0x89, 0x50, 0x4E, 0x47]).write(to: folder.appendingPathComponent("cover.png"))
        let server = try InProcessServer { $0.libraryDirectory = folder.path }
        let local = try TestParty(server, provider: "local")
        let found = try local.client.get("\(local.base)/track/search?q=lied")
        let item = try #require(((found.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]])?.first)
        let id = String((item["uri"] as? String ?? "").dropFirst("local:track:".count))
        #expect(try server.client.get("/local/cover/\(id)").status == 200, "covers show in a local party's search results")
        #expect(try server.client.get("/local/audio/\(id)").status == 404, "the id is known (a hash of the path), but not queued: not served")
        #expect(try local.client.send("POST", "\(local.base)/track/addToPlaylist", json: ["uri": "local:track:\(id)", "deviceId": "g"]).status == 200)
        #expect(try server.client.get("/local/audio/\(id)").status == 200)
        #expect(try local.client.send("DELETE", local.base, auth: local.hostPin).status == 204)
        #expect(try server.client.get("/local/audio/\(id)").status == 404, "the party ended: nothing is served")
        #expect(try server.client.get("/local/cover/\(id)").status == 404)
    }

    /// A queued file, or a folder on its way, swapped for a link after the scan (by someone who may write to the
    /// music folder) does not lead out of the folder.
    @Test func aQueuedFileOrFolderSwappedForALinkIsNotServed() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-swap-\(UUID().uuidString)")
        let album = folder.appendingPathComponent("Album")
        try FileManager.default.createDirectory(at: album, withIntermediateDirectories: true)
        let secret = FileManager.default.temporaryDirectory.appendingPathComponent("mv-secret-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: secret, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder); try? FileManager.default.removeItem(at: secret) }
        let riff = Data(Array("RIFF".utf8) + [UInt8](repeating: 1, count: 400))
        try riff.write(to: album.appendingPathComponent("Lied.wav"))
        try riff.write(to: album.appendingPathComponent("Song.wav"))
        try Data("not music".utf8).write(to: secret.appendingPathComponent("Lied.wav"))
        try Data("not music".utf8).write(to: secret.appendingPathComponent("Song.wav"))
        let server = try InProcessServer { $0.libraryDirectory = folder.path }
        let local = try TestParty(server, provider: "local")
        func queuedId(_ query: String) throws -> String {
            let found = try local.client.get("\(local.base)/track/search?q=\(query)")
            let item = try #require(((found.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]])?.first)
            let uri = item["uri"] as? String ?? ""
            #expect(try local.client.send("POST", "\(local.base)/track/addToPlaylist", json: ["uri": uri, "deviceId": "g"]).status == 200)
            return String(uri.dropFirst("local:track:".count))
        }
        let lied = try queuedId("lied"), song = try queuedId("song")
        #expect(try server.client.get("/local/audio/\(lied)").status == 200)
        try FileManager.default.removeItem(at: album.appendingPathComponent("Lied.wav"))
        try FileManager.default.createSymbolicLink(at: album.appendingPathComponent("Lied.wav"), withDestinationURL: secret.appendingPathComponent("Lied.wav"))
        #expect(try server.client.get("/local/audio/\(lied)").status == 404, "the file became a link")
        let moved = folder.appendingPathComponent("Moved")
        try FileManager.default.moveItem(at: album, to: moved)
        try FileManager.default.createSymbolicLink(at: album, withDestinationURL: secret)
        #expect(try server.client.get("/local/audio/\(song)").status == 404, "a folder on its way became a link")
        try FileManager.default.removeItem(at: album)
        try FileManager.default.moveItem(at: moved, to: album)
        #expect(try server.client.get("/local/audio/\(song)").status == 200, "the real file again")
    }
}
