import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// Requests as the original MusicVoting clients send them (the Angular web frontend with its web
/// player, and the SwiftUI iOS app), written from their documented behaviour: no device ids, the host PIN only
/// through the web interceptor, stream listeners that reconnect at once, relative assumptions about covers.
/// (Their Spotify login flows, first login without a PIN and the partyId-less iOS stream, are in SpotifyTests,
/// next to the Spotify fake.)
@Suite("Original clients replayed", .alsoOnRoundRobinCluster)
struct OriginalClientTests {
    /// An ended party's stream is answered and then kept open, so a listener that reconnects whenever its stream
    /// ends has nothing to reconnect for; a party id that never existed is a 404 that a tight loop gets later and later.
    @Test func aPartyEndIsNoReconnectStorm() throws {
        let party = try TestParty.given(.live)
        let path = "/api/spotify/events?partyId=\(party.id)&source=ios&installationId=phone-1"
        #expect(try party.host("DELETE", "").status == 204)
        let afterEnd = try SSEClient(port: party.client.port, path: path)
        defer { afterEnd.close() }
        #expect(afterEnd.status == 200, "an ended party's stream is no 404 to retry")
        try afterEnd.waitFor("party-ended")
        let pings = afterEnd.commentLines.count
        #expect(eventually(timeout: 3 * patience) { afterEnd.commentLines.count > pings }, "keepalives follow the party-ended event")
        #expect(!afterEnd.waitForEnd(timeout: 0), "the stream is still open: the listener has nothing to reconnect for")
        #expect(afterEnd.received.map(\.type) == ["party-ended"])

        // A listener retrying a party id that never existed at once: the first answers come at once, then the server
        // answers after a pause (a lower bound on the wait, which a busy machine can only lengthen).
        let unknown = "/api/spotify/events?partyId=\(String(repeating: "ab", count: 16))&source=ios"
        var statuses: [Int] = []
        var paced = false
        while !paced && statuses.count < 12 {
            let started = Date()
            let stream = try SSEClient(port: party.client.port, path: unknown)
            statuses.append(stream.status)
            paced = Date().timeIntervalSince(started) >= 1.5
            stream.close()
        }
        #expect(paced, "a tight 404 loop is answered after a pause within 12 requests (\(statuses.count) sent)")
        #expect(statuses.allSatisfy { $0 == 404 }, "paced, not refused: \(statuses)")
    }

    @Test func aWebPlayerPausedForAMinuteIsStillTheDevice() throws {
        let party = try TestParty.given()
        // The web player: registers its SDK device through the interceptor (host PIN), listens without a token.
        let player = party.client.from("127.0.5.1")
        #expect(try player.send("PUT", "\(party.base)/spotify/deviceId", raw: "web-player-1", auth: party.hostPin).status == 200)
        let stream = try player.events("/api/spotify/events?partyId=\(party.id)&source=web")
        defer { stream.close() }
        #expect(try player.get("\(party.base)/spotify/deviceId").text == "web-player-1")
        _ = try party.add(1)
        _ = try party.add(2)
        #expect(try party.current()["deviceActive"] as? Bool == true)
        // It posts progress only while playing, as numbers or numeric strings, sometimes without `paused`.
        #expect(try player.send("POST", "\(party.base)/track/progress", json: ["position": "1200", "duration": 32000],
                                auth: party.hostPin).status == 204)
        #expect(try party.host("POST", "/track/pause").status == 200)
        party.server.letPass(60)
        #expect(try party.current()["deviceActive"] as? Bool == true, "60 s paused, its stream open: still the device")
        let resumed = try party.host("POST", "/track/resume")
        #expect(resumed.status == 200 && resumed.json["isPlaying"] as? Bool == true)
        // Another device registering replaces it.
        _ = try party.registerMonitor(device: "tv-2")
        #expect(try player.get("\(party.base)/spotify/deviceId").text == "web-player-1", "the SDK device is the Spotify one")
    }

    @Test func coversAreAbsolutePNGs() throws {
        let party = try TestParty.given()
        _ = try party.add(3)
        let urls = try party.queue().compactMap { (($0["album"] as? [String: Any])?["images"] as? [[String: Any]])?.first?["url"] as? String }
        #expect(!urls.isEmpty)
        for url in urls {
            let parsed = try #require(URLComponents(string: url))
            #expect(url.hasPrefix(party.server.origin + "/"), "absolute: \(url)")
            #expect(parsed.path.hasSuffix(".png"))
            let image = try party.client.get(parsed.path)
            #expect(image.status == 200 && image.header("content-type") == "image/png")
            #expect(image.body.prefix(8) == [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A], "a PNG the iOS app can decode")
        }
        let search = try party.client.get("\(party.base)/track/search?q=")
        let first = ((search.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]])?.first
        let searchURL = ((first?["album"] as? [String: Any])?["images"] as? [[String: Any]])?.first?["url"] as? String
        #expect(searchURL?.hasPrefix(party.server.origin + "/demo/cover/") == true, "\(searchURL ?? "none")")
    }
}
