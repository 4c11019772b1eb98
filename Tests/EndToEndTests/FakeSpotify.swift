import Foundation
import HTTPServer
import PartyTestSupport

/// Spotify's Accounts service and Web API, as far as the server uses them, on 127.0.0.1.
/// Tokens are real state: codes exchange once, access tokens can be expired and refresh tokens revoked.
/// `@unchecked Sendable`: `lock` guards every field.
final class FakeSpotify: @unchecked Sendable {
    private let lock = NSLock()
    private var validAccess: Set<String> = []
    private var issued = 0
    private var revoked = false
    private var rateLimitSeconds: Int?
    private var lifetime = 3600
    private var deviceGone = false
    private var playlistScopeMissing = false
    var service: FakeService!

    init() throws {
        service = try FakeService { router, _ in
            router.add("POST", "/api/token") { [unowned self] request in self.token(request) }
            router.add("GET", "/v1/search") { [unowned self] request in self.authorized(request) { FakeService.json("spotify/search") } }
            router.add("GET", "/v1/tracks/{id}") { [unowned self] request in
                // trk4 and trk5 are versions of trk1 (R10a): the same ISRC under another title, and a remaster.
                let fixtures = ["trk1": "spotify/track", "trk4": "spotify/track-retitled", "trk5": "spotify/track-remastered"]
                return self.authorized(request) {
                    fixtures[request.parameter("id")].map { FakeService.json($0) } ?? FakeService.json("spotify/expired", status: 404)
                }
            }
            router.add("GET", "/v1/me/top/tracks") { [unowned self] request in self.authorized(request) { FakeService.json("spotify/top-tracks") } }
            router.add("GET", "/v1/me/playlists") { [unowned self] request in self.authorized(request) { FakeService.json("spotify/playlists") } }
            router.add("GET", "/v1/playlists/{id}/tracks") { [unowned self] request in
                self.authorized(request) { FakeService.json("spotify/playlist-tracks") }
            }
            router.add("PUT", "/v1/me/player/play") { [unowned self] request in
                self.authorized(request) { self.isDeviceGone ? FakeService.json("spotify/no-device", status: 404) : .noContent }
            }
            router.add("GET", "/v1/me") { [unowned self] request in self.authorized(request) { FakeService.json("spotify/me") } }
            // R32: a login without `playlist-modify-private` may not create a playlist; a call adds at most 100 items.
            router.add("POST", "/v1/users/{user}/playlists") { [unowned self] request in
                self.authorized(request) {
                    guard request.parameter("user") == "host" else { return FakeService.json("spotify/expired", status: 404) }
                    return self.isPlaylistScopeMissing ? FakeService.json("spotify/insufficient-scope", status: 403)
                        : FakeService.json("spotify/created-playlist", status: 201)
                }
            }
            router.add("POST", "/v1/playlists/{id}/tracks") { [unowned self] request in
                self.authorized(request) {
                    let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any]
                    guard let uris = body?["uris"] as? [String], (1...100).contains(uris.count) else {
                        return FakeService.json("spotify/expired", status: 400)
                    }
                    return FakeService.json("spotify/snapshot", status: 201)
                }
            }
            router.add("PUT", "/v1/me/player/pause") { [unowned self] request in self.authorized(request) { .noContent } }
        }
    }

    var base: String { service.base }
    var requests: [Request] { service.requests }
    func stop() { service.stop() }

    func expireAccessTokens() { lock.lock(); validAccess.removeAll(); lock.unlock() }
    func revokeRefreshTokens() { lock.lock(); revoked = true; validAccess.removeAll(); lock.unlock() }
    func rateLimit(_ seconds: Int?) { lock.lock(); rateLimitSeconds = seconds; lock.unlock() }
    /// The SDK device vanished (the TV closed the tab): player calls answer 404.
    func loseDevice() { lock.lock(); deviceGone = true; lock.unlock() }
    private var isDeviceGone: Bool { lock.lock(); defer { lock.unlock() }; return deviceGone }
    /// R32: the host's login lacks `playlist-modify-private`.
    func withholdPlaylistScope() { lock.lock(); playlistScopeMissing = true; lock.unlock() }
    private var isPlaylistScopeMissing: Bool { lock.lock(); defer { lock.unlock() }; return playlistScopeMissing }
    /// Access tokens issued from now on expire after `seconds`.
    func tokenLifetime(_ seconds: Int) { lock.lock(); lifetime = seconds; lock.unlock() }

    /// The play commands the server sent, in order: device, uris and position from each request.
    func plays(device: String? = nil) -> [(deviceId: String?, uris: [String], positionMs: Int)] {
        requests.filter { $0.path == "/v1/me/player/play" && (device == nil || $0.query["device_id"] == device) }.map { request in
            let body = (try? JSONSerialization.jsonObject(with: Data(request.body))) as? [String: Any] ?? [:]
            return (request.query["device_id"], body["uris"] as? [String] ?? [], body["position_ms"] as? Int ?? -1)
        }
    }

    static func form(_ request: Request) -> [String: String] {
        var fields: [String: String] = [:]
        for pair in request.bodyText.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        return fields
    }

    private func token(_ request: Request) -> Response {
        let form = Self.form(request)
        lock.lock()
        defer { lock.unlock() }
        switch form["grant_type"] {
        case "authorization_code" where form["code"] == "good-code" && form["code_verifier"] != nil:
            issued += 1
            validAccess.insert("access-\(issued)")
            return .json(["access_token": .string("access-\(issued)"), "token_type": "Bearer", "expires_in": .integer(lifetime),
                          "refresh_token": "refresh-1", "scope": "streaming user-read-email"])
        case "refresh_token" where form["refresh_token"] == "refresh-1" && !revoked:
            issued += 1
            validAccess.insert("access-\(issued)")
            return .json(["access_token": .string("access-\(issued)"), "token_type": "Bearer", "expires_in": 3600, "scope": "streaming"])
        default:
            return FakeService.json("spotify/invalid-grant", status: 400)
        }
    }

    private func authorized(_ request: Request, _ answer: () -> Response) -> Response {
        lock.lock()
        let valid = request.bearerToken.map { validAccess.contains($0) } ?? false
        let limit = rateLimitSeconds
        lock.unlock()
        guard valid else { return FakeService.json("spotify/expired", status: 401) }
        if let limit { return FakeService.json("spotify/rate-limited", status: 429).adding(header: "Retry-After", String(limit)) }
        return answer()
    }
}
