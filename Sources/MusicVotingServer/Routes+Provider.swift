import Foundation
import HTTPServer
import PartyCore
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
                _ = try service.registerMonitor(deviceId: deviceId, caller: caller, party: party)
                return .json(["status": "Device ID gesetzt"])
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
                guard let token = try service.providerTokens(of: party)?.accessToken else {
                    throw ProviderError.notConfigured
                }
                return .text(token).adding(header: "Cache-Control", "no-store")
            }
        }
        router.add("GET", "/api/party/{id}/spotify/playlists", summary: "The host's playlists", security: "hostPin") { request throws(HTTPError) in
            try respond("playlists") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let provider = try service.provider(for: party)
                return respond("playlists", calling: provider) {
                    .json(["playlists": .array(try provider.playlists().map { playlist in
                        ["id": .string(playlist.id), "name": .string(playlist.name), "trackCount": .integer(playlist.trackCount),
                         "imageUrl": .optional(playlist.imageURL)]
                    })])
                }
            }
        }
        router.add("GET", "/api/party/{id}/spotify/login", summary: "Start the provider login (303)") { request throws(HTTPError) in
            try respond("spotify login") {
                _ = try service.activeParty(id: request.parameter("id"))
                // The OAuth flow arrives with the Spotify provider; until then no provider can log in.
                throw ProviderError.notConfigured
            }
        }
        let callback: Handler = { request throws(HTTPError) in
            try respond("spotify callback") {
                guard let state = request.query["state"], !state.isEmpty, let code = request.query["code"], !code.isEmpty else {
                    throw PartyError.invalidInput("Missing code or state")
                }
                throw PartyError.invalidInput("Invalid state")
            }
        }
        router.add("GET", "/api/spotify/callback", summary: "OAuth callback (web)", callback)
        router.add("GET", "/api/spotify/ios/callback", summary: "OAuth callback (iOS)", callback)
    }
}
