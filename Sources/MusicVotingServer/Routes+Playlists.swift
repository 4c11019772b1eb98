import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine
import Providers

extension Routes {
    /// R32: most songs one save takes, as in the original backend.
    static let maxUrisPerSave = 500

    func addPlaylistRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/party/{id}/track/saveToPlaylist",
                   summary: "Save uris (1–500, in order) as a new private playlist in the host's account (R32); 501 for a provider without playlists",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("saveToPlaylist") {
                let json = try request.json()
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                guard case .array(let items) = json else { throw PartyError.invalidInput("Invalid JSON body") }
                let uris = try items.map { item in
                    guard let uri = item.stringValue, !uri.isEmpty, uri.utf8.count <= 256, !uri.contains("/") else { throw PartyError.invalidUri }
                    return uri
                }
                guard !uris.isEmpty else { throw PartyError.noTracks }
                guard uris.count <= Self.maxUrisPerSave else { throw PartyError.tooManyUris(limit: Self.maxUrisPerSave) }
                let provider = try service.provider(for: party)
                let name = PlaylistFile.name(at: service.now)
                let loginURL = service.publicBase + "/api/party/" + party.id + "/spotify/login?source=web"
                return respond("saveToPlaylist", calling: provider, gate: service.remoteCalls) {
                    do {
                        guard let saved = try provider.savePlaylist(named: name, uris: uris) else {
                            return Response(error: HTTPError(status: 501, message: "Playlists speichern wird nicht unterstützt.",
                                                             code: "not_implemented"))
                        }
                        return .json(["playlistUrl": .string(saved.url), "saved": .integer(saved.saved)], status: 201)
                    } catch ProviderError.playlistScopeMissing {
                        // The login link asks for the scope now (SpotifyConfiguration.scopes).
                        let error = ErrorMapping.httpError(ProviderError.playlistScopeMissing)
                        return Response(error: HTTPError(status: error.status, message: error.message, code: error.code,
                                                         fields: [("loginUrl", .string(loginURL))]))
                    }
                }
            }
        }
        router.add("GET", "/api/party/{id}/export.m3u8", summary: "The waiting queue (with history on, the songs played and playing first) as an M3U8 playlist file (R32, R33)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("export") {
                let file = try Self.playlistFile(request, service: service)
                return Self.download(Array(file.m3u8.utf8), contentType: "audio/x-mpegurl; charset=utf-8", file: "musicvoting.m3u8")
            }
        }
        router.add("GET", "/api/party/{id}/export.jspf", summary: "The waiting queue (with history on, the songs played and playing first) as a JSPF playlist file (R32, R33)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("export") {
                let file = try Self.playlistFile(request, service: service)
                return Self.download(file.jspf.bytes, contentType: "application/jspf+json; charset=utf-8", file: "musicvoting.jspf")
            }
        }
    }

    /// The waiting songs in R9 order (the playing one has been heard). While the party keeps its history (R33), the
    /// whole evening: the songs played in the order they started, the playing one, then the waiting ones.
    static func playlistFile(_ request: Request, service: PartyService) throws -> PlaylistFile {
        let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
        let queue = try service.queue(of: party)
        var tracks = queue.waiting.map(\.track)
        if party.settings.history {
            tracks = try service.history(of: party).map(\.track) + (queue.current.map { [$0.track] } ?? []) + tracks
        }
        return PlaylistFile(title: PlaylistFile.name(at: service.now), tracks: tracks, provider: try service.provider(for: party),
                            base: service.publicBase)
    }

    static func download(_ bytes: [UInt8], contentType: String, file: String) -> Response {
        Response.bytes(bytes, contentType: contentType).adding(header: "Content-Disposition", "attachment; filename=\"\(file)\"")
    }
}
