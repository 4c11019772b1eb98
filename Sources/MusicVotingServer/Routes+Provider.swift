import Foundation
import HTTPServer
import PartyCore
import PartyEngine
import Providers

extension Routes {
    func addProviderRoutes(to router: inout Router) {
        let service = self.service
        router.add("PUT", "/api/party/{id}/spotify/deviceId", summary: "Register the Web Playback SDK device", security: "monitorOrHost") { request throws(HTTPError) in
            try respond("spotify device") {
                let (party, caller) = try service.requireHostOrMonitor(request, partyId: request.parameter("id"))
                let deviceId = request.bodyText.trimmingCharacters(in: .whitespacesAndNewlines)
                guard !deviceId.isEmpty else { throw PartyError.invalidInput("Device ID darf nicht leer sein") }
                guard Identifiers.isWellFormedDeviceId(deviceId) else { throw PartyError.invalidInput("Invalid device id") }
                _ = try service.registerMonitor(deviceId: deviceId, caller: caller, party: party, clientAddress: request.clientAddress,
                                                asWebPlayer: true)
                service.registerSDKDevice(deviceId, party: party)
                return .json(["status": "Device ID gesetzt"])
            }
        }
        router.add("GET", "/api/party/{id}/spotify/deviceId", summary: "The Web Playback SDK device (text; 404 when none)") { request throws(HTTPError) in
            try respond("spotify device") {
                let party = try service.activeParty(id: request.parameter("id"))
                guard let deviceId = service.sdkDevice(of: party) else {
                    throw HTTPError(status: 404, message: "Kein Spotify-Gerät registriert.")
                }
                return .text(deviceId)
            }
        }
        router.add("GET", "/api/party/{id}/spotify/status", summary: "Whether the host is logged in to the provider") { request throws(HTTPError) in
            try respond("spotify status") {
                let party = try service.activeParty(id: request.parameter("id"))
                return .json(["loggedIn": .bool(try service.providerTokens(of: party)?.refreshToken != nil)])
            }
        }
        router.add("GET", "/api/party/{id}/spotify/token", summary: "Access token for the monitor's SDK (R28)", security: "monitorOrHost") { request throws(HTTPError) in
            try respond("spotify token") {
                let (party, _) = try service.requireHostOrMonitor(request, partyId: request.parameter("id"))
                guard let spotify = try service.provider(for: party) as? SpotifyProvider else { throw ProviderError.notConfigured }
                return respond("spotify token", calling: spotify, gate: service.remoteCalls) {
                    .text(try spotify.client.accessToken(partyId: party.id)).adding(header: "Cache-Control", "no-store")
                }
            }
        }
        router.add("GET", "/api/party/{id}/spotify/playlists", summary: "The host's playlists", security: "hostPin") { request throws(HTTPError) in
            try respond("playlists") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let provider = try service.provider(for: party)
                return respond("playlists", calling: provider, gate: service.remoteCalls) {
                    .json(["playlists": .array(try provider.playlists().map { playlist in
                        ["id": .string(playlist.id), "name": .string(playlist.name), "trackCount": .integer(playlist.trackCount),
                         "imageUrl": .optional(playlist.imageURL)]
                    })])
                }
            }
        }
        router.add("GET", "/api/party/{id}/spotify/login", summary: "Start the host's Spotify login (303)") { request throws(HTTPError) in
            try respond("spotify login") {
                // SPEC: the party's first login needs no PIN (the original clients navigate here right after creating
                // the party, without one); replacing an existing login needs the host PIN (hostPin query or Bearer), so
                // a guest cannot swap the host's account. A PIN that is given is always checked (R24a).
                var party = try service.activeParty(id: request.parameter("id"))
                let pin = request.bearerToken ?? request.query["hostPin"]
                let loggedIn = try service.providerTokens(of: party)?.refreshToken != nil
                if pin != nil || loggedIn {
                    party = try service.authorize(Credential(token: pin, clientAddress: request.clientAddress), partyId: party.id).0
                }
                guard let spotify = try service.provider(for: party) as? SpotifyProvider else { throw ProviderError.notConfigured }
                // The host's own logins are neither counted in the party's budget nor kept where guests' push them out.
                let byHost = pin != nil
                try service.admitProviderLogin(party: party, clientAddress: request.clientAddress, byHost: byHost)
                let source = request.query["source"] == "ios" ? "ios" : "web"
                let installation = request.query["installationId"].flatMap { Identifiers.isWellFormedDeviceId($0) ? $0 : nil }
                let (state, challenge) = try spotify.loginState.begin(partyId: party.id, source: source, installationId: installation, byHost: byHost)
                let url = spotify.client.authorizeURL(state: state, challenge: challenge,
                                                      redirectURI: Self.redirectURI(spotify, source: source, service: service))
                return .redirect(to: url.absoluteString)
            }
        }
        let callback: Handler = { request throws(HTTPError) in
            try respond("spotify callback") {
                // R26: a callback is input; without a Spotify app no state can be valid, so it is a 400, not a 503.
                guard let spotify = service.providers.provider(named: "spotify") as? SpotifyProvider else {
                    throw PartyError.invalidInput(request.query["state"] == nil ? "Missing code or state" : "Invalid state")
                }
                // The host said no on Spotify's page: the state is used up, the host page says so.
                if request.query["error"] != nil, let state = request.query["state"], try Self.redeem(state, spotify) != nil {
                    return .redirect(to: "/host?spotify=denied")
                }
                guard let code = request.query["code"], !code.isEmpty, let state = request.query["state"], !state.isEmpty else {
                    throw PartyError.invalidInput("Missing code or state")
                }
                guard let login = try Self.redeem(state, spotify) else { throw PartyError.invalidInput("Invalid state") }
                let party = try service.activeParty(id: login.partyId)
                return respond("spotify callback", calling: spotify, gate: service.remoteCalls) {
                    try spotify.client.exchange(code: code, verifier: login.verifier,
                                                redirectURI: Self.redirectURI(spotify, source: login.source, service: service), partyId: party.id)
                    service.publishLogin(party: party, source: login.source, installationId: login.installationId)
                    guard login.source == "ios" else { return .redirect(to: "/host?spotify=connected") }
                    // The app's own completion call (URLSession, `X-Install-Id`) wants a 2xx; Safari, sent here by
                    // Spotify, is sent back into the app, which then checks the login status.
                    return request.header("x-install-id") != nil
                        ? .json(["status": "connected"])
                        : .redirect(to: Self.iosAppCallback)
                }
            }
        }
        router.add("GET", "/api/spotify/callback", summary: "OAuth callback (web)", callback)
        router.add("GET", "/api/spotify/ios/callback", summary: "OAuth callback (iOS)", callback)
    }

    /// The login `state` stands for, or nil when it is forged, expired or used; a database that cannot be asked
    /// (several instances keep the states there) throws (503), rather than reading as an invalid state.
    static func redeem(_ state: String, _ spotify: SpotifyProvider) throws -> SpotifyLoginState.Login? {
        do { return try spotify.loginState.redeem(state) } catch SpotifyLoginState.Failure.invalid { return nil }
    }

    /// Where a finished iOS login returns to the original app (its URL scheme; without `code` it checks the status).
    static let iosAppCallback = "musicvotingapp://callback?success=1"

    /// The redirect URI registered in the host's Spotify app, or this server's own callback path.
    static func redirectURI(_ spotify: SpotifyProvider, source: String, service: PartyService) -> String {
        let configured = spotify.client.configuration
        if !configured.redirectURI.isEmpty { return source == "ios" ? configured.iosRedirectURI : configured.redirectURI }
        return service.publicBase + (source == "ios" ? "/api/spotify/ios/callback" : "/api/spotify/callback")
    }
}
