import Foundation
import PartyTestSupport
import Testing

/// R32: saving the queue as a playlist where the provider has playlists, and playlist files for every provider.
@Suite("R32 saving and exporting playlists")
struct PlaylistRoutesTests {
    @Test func savingIsTheHostsAndRefusesEmptyOversizedAndPlaylistlessRequests() throws {
        let party = try TestParty.given()
        let guest = try party.client.send("POST", "\(party.base)/track/saveToPlaylist", json: ["demo:track:1"])
        #expect(guest.isError(401, "Host-PIN fehlt."), "\(guest)")
        #expect(try party.host("POST", "/track/saveToPlaylist", json: [String]()).isError(400, "No tracks provided"))
        let tooMany = try party.host("POST", "/track/saveToPlaylist", json: (1...501).map { "demo:track:\($0)" })
        #expect(tooMany.status == 400 && tooMany.code == "too_many_uris", "\(tooMany)")
        #expect(try party.host("POST", "/track/saveToPlaylist", json: ["uri": "demo:track:1"]).status == 400, "a list, as in the original")
        let demo = try party.host("POST", "/track/saveToPlaylist", json: ["demo:track:1", "demo:track:2"])
        #expect(demo.status == 501 && demo.code == "not_implemented", "the demo catalogue has no playlists: \(demo)")
    }

    @Test func theExportsListTheWaitingSongsInQueueOrderAsThisServersAudio() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1)
        try party.add(2)
        try party.add(3)
        try party.vote(3, device: "fan")
        #expect(try party.currentUri() == "demo:track:1")
        #expect(try party.client.get("\(party.base)/export.m3u8").isError(401, "Host-PIN fehlt."))

        let m3u8 = try party.host("GET", "/export.m3u8")
        #expect(m3u8.status == 200 && m3u8.header("content-type") == "audio/x-mpegurl; charset=utf-8", "\(m3u8)")
        #expect(m3u8.header("content-disposition") == "attachment; filename=\"musicvoting.m3u8\"")
        let lines = m3u8.text.split(separator: "\n").map(String.init)
        #expect(lines.first == "#EXTM3U")
        let locations = lines.filter { !$0.hasPrefix("#") }
        // The playing song was heard; the waiting ones follow R9 (the liked song first), then the refill's.
        #expect(Array(locations.prefix(2)) == ["\(InProcessServer.publicURL)/demo/audio/3.wav", "\(InProcessServer.publicURL)/demo/audio/2.wav"],
                "\(locations)")
        let third = try #require(party.queue().first { $0["uri"] as? String == "demo:track:3" })
        let artist = ((third["artists"] as? [[String: Any]])?.first?["name"] as? String) ?? ""
        #expect(lines.contains("#EXTINF:\((third["duration_ms"] as? Int ?? 0) / 1000),\(artist) - \(third["name"] as? String ?? "")"))

        let jspf = try party.host("GET", "/export.jspf")
        #expect(jspf.status == 200 && jspf.header("content-type") == "application/jspf+json; charset=utf-8", "\(jspf)")
        let playlist = try #require(jspf.json["playlist"] as? [String: Any])
        #expect((playlist["title"] as? String)?.hasPrefix("MusicVoting ") == true)
        let tracks = try #require(playlist["track"] as? [[String: Any]])
        #expect(tracks.first?["location"] as? [String] == ["\(InProcessServer.publicURL)/demo/audio/3.wav"])
        #expect(tracks.first?["title"] as? String == third["name"] as? String && tracks.first?["duration"] as? Int == third["duration_ms"] as? Int)
        #expect(tracks.count == locations.count)
    }
}
