import Foundation
import PartyTestSupport
import Testing

/// R32 with R31: the host's Spotify login and the playlist it saves work wherever round-robin nginx sends each step
/// (the login's redirect, its callback and the save may each land on another instance).
@Suite("R32 saving to Spotify on three instances")
struct PlaylistSaveClusterTests {
    @Test func aLoginThroughOneInstanceSavesThePlaylistThroughAnother() throws {
        let spotify = try FakeSpotify()
        defer { spotify.stop() }
        let cluster = try TestCluster(instances: 3, nginx: .roundRobin, arguments: spotifyArguments(spotify))
        defer { cluster.stop() }
        let party = try TestParty(cluster, provider: "spotify")
        try logIn(party)
        let uris = (1...120).map { "spotify:track:t\($0)" }
        for attempt in 0..<3 {
            let saved = try party.host("POST", "/track/saveToPlaylist", json: uris)
            #expect(saved.status == 201 && saved.json["saved"] as? Int == 120, "attempt \(attempt): \(saved.status) \(saved.text)")
        }
        let batches = spotify.requests.filter { $0.path.hasSuffix("/tracks") && $0.path.hasPrefix("/v1/playlists/") }.map { request in
            ((try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any])?["uris"] as? [String] ?? []
        }
        #expect(batches.map(\.count) == [100, 20, 100, 20, 100, 20], "every instance saves in order, at most 100 a call: \(batches.map(\.count))")
        #expect(spotify.requests.filter { $0.path == "/v1/users/host/playlists" }.count == 3, "one playlist per save")
    }
}
