import Foundation
import PartyTestSupport
import Testing

@Suite("R26 bad input never yields a 5xx")
struct RobustnessRoutesTests {
    @Test func unknownRoutesAndWrongMethodsHaveTheErrorShape() throws {
        let party = try TestParty.given()
        let unknown = try party.client.get("/api/nothing")
        #expect(unknown.isError(404, "Not found"), "\(unknown)")
        let wrongMethod = try party.client.send("PATCH", "/api/party")
        #expect(wrongMethod.isError(405, "Method not allowed"), "\(wrongMethod)")
        let wrongOnParty = try party.client.send("POST", party.base)
        #expect(wrongOnParty.isError(405, "Method not allowed"), "\(wrongOnParty)")
        let page = try party.client.get("/nowhere", headers: ["Accept": "text/html"])
        #expect(page.status == 404 && page.header("content-type")?.hasPrefix("text/html") == true, "a browser gets a page: \(page.status)")
        // Found by schemathesis against /api/openapi.json: OAuth callbacks without a Spotify app were 503s.
        #expect(try party.client.get("/api/spotify/callback").isError(400, "Missing code or state"))
        #expect(try party.client.get("/api/spotify/ios/callback?code=x&state=y").isError(400, "Invalid state"))
    }

    @Test func malformedAndMistypedBodiesAnswer4xxOnEveryEndpoint() throws {
        let party = try TestParty.given()
        let bodies = ["{", "[]", "null", "\"text\"", "{\"uri\": 5, \"deviceId\": []}", "{\"provider\": {\"a\": 1}}",
                      String(repeating: "[", count: 500), "{\"word\": true}", "{\"playlistId\": 1.5}", "\u{0}\u{1}",
                      "{\"position\": -1, \"duration\": \"x\", \"paused\": 3}", "{\"uri\": \"\(String(repeating: "a", count: 5000))\"}"]
        let endpoints: [(String, String)] = [
            ("POST", "/api/party"), ("POST", "\(party.base)/track/addToPlaylist"), ("POST", "\(party.base)/track/vote"),
            ("DELETE", "\(party.base)/track/remove"), ("PUT", "\(party.base)/default-playlist"), ("PUT", "\(party.base)/blacklist"),
            ("PUT", "\(party.base)/device"), ("POST", "\(party.base)/track/progress"), ("PUT", "\(party.base)/track/play"),
            ("PUT", "\(party.base)/spotify/deviceId"), ("POST", "\(party.base)/tv/pair"),
        ]
        for (method, path) in endpoints {
            for body in bodies {
                for auth in [nil, party.hostPin] {
                    let response = try party.client.send(method, path, raw: body, auth: auth)
                    // 204: a progress report without fields is 0 / 0 / not paused, as the original backend took it.
                    #expect((400..<500).contains(response.status) || [200, 201, 204].contains(response.status),
                            "\(method) \(path) \(body.prefix(40)) → \(response)")
                    if response.status >= 400 {
                        #expect(response.error != nil && response.code != nil, "error shape for \(method) \(path): \(response)")
                    }
                }
            }
        }
    }

    @Test func theOriginalBackendsSmallerRoutesAnswerClearly() throws {
        let party = try TestParty.given()
        let save = try party.host("POST", "/track/saveToPlaylist", json: ["demo:track:1"])
        #expect(save.isError(501, "Playlists speichern wird nicht unterstützt."), "a provider without playlists, not a misleading 405: \(save)")
        let device = try party.client.get("\(party.base)/spotify/deviceId")
        #expect(device.status == 404 && device.error == "Kein Spotify-Gerät registriert.", "no SDK device yet: \(device)")
        let blank = try party.host("DELETE", "/track/remove", json: ["uri": " "])
        #expect(blank.isError(400, "Missing uri"), "\(blank)")
        let token = try party.registerMonitor()
        for body: [String: Any] in [[:], ["position": 5, "duration": "30000", "paused": "false"], ["position": NSNull()]] {
            let progress = try party.client.send("POST", "\(party.base)/track/progress", json: body, auth: token)
            #expect(progress.status == 204, "\(body): \(progress)")
        }
        for body: [String: Any] in [["position": "x"], ["position": -1], ["paused": "maybe"], ["duration": "1e400"]] {
            let refused = try party.client.send("POST", "\(party.base)/track/progress", json: body, auth: token)
            #expect(refused.isError(400, "Invalid progress: needs position, duration (ms) and paused"), "\(body): \(refused)")
        }
    }
}
