import Foundation
import HTTPServer
import JSONKit
import PartyTestSupport
import TestSupport
import Testing

/// The YouTube Data API v3 as far as the server uses it, answering from the fixtures.
private func fakeYouTube() throws -> FakeService {
    try FakeService { router, _ in
        router.add("GET", "/youtube/v3/search") { _ in FakeService.json("youtube/search") }
        router.add("GET", "/youtube/v3/videos") { request in
            if request.query["chart"] == "mostPopular" { return FakeService.json("youtube/charts") }
            // Only the requested ids, like the real endpoint.
            let wanted = Set((request.query["id"] ?? "").split(separator: ",").map(String.init))
            guard case .object(let root) = try! JSON.parse(FakeService.fixture("youtube/videos")),
                  case .array(let items)? = root.first(where: { $0.0 == "items" })?.1 else { return .json([:]) }
            return .json(["kind": "youtube#videoListResponse",
                          "items": .array(items.filter { wanted.contains($0["id"]?.stringValue ?? "") })])
        }
    }
}

@Suite("Provider youtube against a local fake", .serialized)
struct YouTubeTests {
    @Test func searchMapsVideosToTheSpotifyTrackShapeWithDurations() throws {
        let youtube = try fakeYouTube()
        defer { youtube.stop() }
        let server = try InProcessServer { $0.youtubeKey = "test-key"; $0.youtubeBase = youtube.base + "/youtube/v3" }
        #expect(try server.client.get("/").text.contains("value=\"youtube\""))
        let party = try TestParty(server, provider: "youtube")
        let response = try party.client.get("\(party.base)/track/search?q=sommer")
        #expect(response.status == 200)
        let items = (response.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["uri"] as? String } == ["youtube:video:aaaaaaaaaa1", "youtube:video:bbbbbbbbbb2"], "the live stream (P0D) is dropped")
        #expect(items.first?["name"] as? String == "Sommer & Sonne (Official Video)", "titles from videos.list, not HTML-escaped")
        #expect(items.first?["duration_ms"] as? Int == 205_000)
        #expect(items.last?["duration_ms"] as? Int == 3_723_000)
        #expect((items.last?["artists"] as? [[String: Any]])?.first?["name"] as? String == "Kältefront", "' - Topic' is dropped")
        let images = (items.first?["album"] as? [String: Any])?["images"] as? [[String: Any]]
        #expect(images?.first?["url"] as? String == "https://i.ytimg.com/vi/aaaaaaaaaa1/hqdefault.jpg")

        let search = try #require(youtube.requests.first { $0.path == "/youtube/v3/search" })
        #expect(search.query["type"] == "video" && search.query["videoCategoryId"] == "10" && search.query["videoEmbeddable"] == "true")
        #expect(search.query["q"] == "sommer" && search.query["key"] == "test-key" && search.query["part"] == "snippet")
        let videos = try #require(youtube.requests.first { $0.path == "/youtube/v3/videos" })
        #expect(videos.query["id"] == "aaaaaaaaaa1,bbbbbbbbbb2,ccccccccccc" && videos.query["part"]?.contains("contentDetails") == true)

        let before = youtube.requests.count
        #expect(try party.client.get("\(party.base)/track/search?q=Sommer").status == 200)
        #expect(youtube.requests.count == before, "a repeated search is answered from the cache (quota)")

        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "youtube:video:aaaaaaaaaa1", "deviceId": "g"]).status == 200)
        #expect(try party.queueUris() == ["youtube:video:aaaaaaaaaa1"])
        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "youtube:video:zzzzzzzzzzz", "deviceId": "g"]).status == 404)
    }

    @Test func emptyQueryAndRefillUseTheMostPopularMusicVideos() throws {
        let youtube = try fakeYouTube()
        defer { youtube.stop() }
        let server = try InProcessServer { $0.youtubeKey = "k"; $0.youtubeBase = youtube.base + "/youtube/v3" }
        let party = try TestParty(server, provider: "youtube")
        let top = try party.client.get("\(party.base)/track/search?q=")
        let items = (top.json["tracks"] as? [String: Any])?["items"] as? [[String: Any]] ?? []
        #expect(items.map { $0["name"] as? String } == ["Chart Nummer Eins"], "not embeddable is dropped")
        let chart = try #require(youtube.requests.first { $0.query["chart"] == "mostPopular" })
        #expect(chart.query["videoCategoryId"] == "10" && chart.query["regionCode"] == "DE")
        _ = try party.registerMonitor()
        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "youtube:video:bbbbbbbbbb2", "deviceId": "g"]).status == 200)
        let queue = try party.queue()
        #expect(queue.map { $0["uri"] as? String } == ["youtube:video:bbbbbbbbbb2", "youtube:video:ddddddddddd"])
        #expect(queue.last?["autofilled"] as? Bool == true)
    }

    @Test func anExhaustedQuotaBecomesAClearMessageForGuests() throws {
        let youtube = try fakeYouTube()
        defer { youtube.stop() }
        youtube.fail(with: FakeService.json("youtube/quota", status: 403))
        let server = try InProcessServer { $0.youtubeKey = "k"; $0.youtubeBase = youtube.base + "/youtube/v3" }
        let party = try TestParty(server, provider: "youtube")
        let response = try party.client.get("\(party.base)/track/search?q=anything")
        #expect(response.status == 503)
        #expect(response.error == "Das YouTube-Kontingent für heute ist aufgebraucht. Bitte später noch einmal versuchen.")
        let stream = try party.events()
        _ = try party.registerMonitor()
        #expect(try party.host("POST", "/track/prepare-next").status == 204)
        let failure = try stream.waitFor("playback-error")
        #expect(failure.payload["message"] as? String == "Kein Nachschub für die Warteschlange: "
                + "Das YouTube-Kontingent für heute ist aufgebraucht. Bitte später noch einmal versuchen.")
        #expect(failure.payload["code"] as? String == "refill_failed")
        // ▶ on the empty party tries the refill; when there is none it says so (SPEC's `empty`), and why.
        let empty = try party.host("POST", "/track/start")
        #expect(empty.json["status"] as? String == "empty" && empty.json["message"] as? String == "Warteschlange ist leer")
        // A `playback-error` is sent live only (not logged, no id): the second one is the second received.
        #expect(eventually { stream.received.filter { $0.type == "playback-error" }.count >= 2 })
        #expect(stream.received.filter { $0.type == "playback-error" }.last?.payload["message"] as? String
                == failure.payload["message"] as? String, "the reason is told again")
        youtube.fail(with: Response(status: 500))
        let broken = try party.client.get("\(party.base)/track/search?q=other")
        #expect(broken.status == 502 && broken.error?.contains("YouTube") == true)
        youtube.stop()
        let gone = try party.client.get("\(party.base)/track/search?q=third")
        #expect(gone.status == 502, "a service that is down is a 502 with a message, never a hang or a 500")
    }
}
