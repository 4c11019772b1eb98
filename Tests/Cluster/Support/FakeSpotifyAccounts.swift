import Foundation
import HTTPServer
import PartyTestSupport

/// Spotify's token endpoint as far as a login needs it, on 127.0.0.1 and our own HTTP layer (as the end-to-end
/// suite's `FakeSpotify`): the code `good-code` with a PKCE verifier exchanges for tokens; anything else is refused.
final class FakeSpotifyAccounts {
    private let server: Server

    init() throws {
        var router = Router()
        router.add("POST", "/api/token") { request in
            let form = Dictionary(request.bodyText.split(separator: "&").compactMap { pair -> (String, String)? in
                let parts = pair.split(separator: "=", maxSplits: 1).map { String($0).removingPercentEncoding ?? String($0) }
                return parts.count == 2 ? (parts[0], parts[1]) : nil
            }, uniquingKeysWith: { $1 })
            guard form["grant_type"] == "authorization_code", form["code"] == "good-code", form["code_verifier"] != nil else {
                return .json(["error": "invalid_grant"], status: 400)
            }
            return .json(["access_token": "access-1", "token_type": "Bearer", "expires_in": 3600, "refresh_token": "refresh-1",
                          "scope": "streaming"])
        }
        let routes = router
        server = Server { request in routes.handle(request).response }
        try server.start(Server.Configuration(host: "127.0.0.1", port: 0, threads: 1, connectionLimit: 16))
    }

    var base: String { "http://127.0.0.1:\(server.port)" }

    func stop() { server.stop() }
}
