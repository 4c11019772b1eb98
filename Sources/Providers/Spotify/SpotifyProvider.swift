import Foundation
import PartyCore

/// Provider `spotify`: per-party host login (authorization code + PKCE), Web API search and playlists,
/// and playback on the monitor's Web Playback SDK device, driven from the server one track at a time.
public struct SpotifyProvider: MusicProvider {
    public static let uriPrefix = "spotify:track:"
    public let client: SpotifyClient
    public let loginState: SpotifyLoginState
    let partyId: String?

    public init(client: SpotifyClient, loginState: SpotifyLoginState, partyId: String? = nil) {
        self.client = client
        self.loginState = loginState
        self.partyId = partyId
    }

    public var name: String { "spotify" }
    public var isConfigured: Bool { true }
    public var isRemote: Bool { true }

    public func bound(to partyId: String) -> any MusicProvider {
        SpotifyProvider(client: client, loginState: loginState, partyId: partyId)
    }

    private func party() throws(ProviderError) -> String {
        guard let partyId else { throw .notLoggedIn }
        return partyId
    }

    /// Web API search allows at most 10 results a page; an empty query answers the charts.
    public func search(_ query: String) throws(ProviderError) -> [Track] {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return try charts() }
        let reply = try client.api("GET", "search", query: ["q": trimmed, "type": "track", "limit": "10", "offset": "0"],
                                   partyId: try party())
        return try client.decode(SpotifyAPI.SearchResponse.self, reply).tracks.items.compactMap { $0?.track }
    }

    public func track(uri: String) throws(ProviderError) -> Track? {
        guard uri.hasPrefix(Self.uriPrefix) else { return nil }
        let id = String(uri.dropFirst(Self.uriPrefix.count))
        guard !id.isEmpty, id.utf8.count <= 64, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return nil }
        do {
            let reply = try client.api("GET", "tracks/\(id)", partyId: try party())
            return try client.decode(SpotifyAPI.TrackObject.self, reply).track
        } catch .unavailable {
            return nil
        }
    }

    public func uri(forTrackId id: String) -> String { Self.uriPrefix + id }

    /// The host's top tracks: Spotify's editorial chart playlists are closed to new apps.
    public func charts() throws(ProviderError) -> [Track] {
        let reply = try client.api("GET", "me/top/tracks", query: ["limit": "10"], partyId: try party())
        return try client.decode(SpotifyAPI.TopTracksResponse.self, reply).items.compactMap { $0?.track }
    }

    public func playlists() throws(ProviderError) -> [Playlist] {
        let reply = try client.api("GET", "me/playlists", query: ["limit": "50"], partyId: try party())
        return try client.decode(SpotifyAPI.PlaylistsResponse.self, reply).items.compactMap { $0 }.map {
            Playlist(id: $0.id, name: $0.name, trackCount: $0.tracks?.total ?? 0, imageURL: $0.images?.first?.url)
        }
    }

    public func playlistTracks(id: String) throws(ProviderError) -> [Track] {
        guard !id.isEmpty, id.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) else { return [] }
        let reply = try client.api("GET", "playlists/\(id)/tracks", query: ["limit": "50"], partyId: try party())
        return try client.decode(SpotifyAPI.PlaylistTracksResponse.self, reply).items.compactMap { $0?.track?.track }
    }

    /// R32: a private playlist in the host's account, filled in order in batches of 100 (the most one call takes).
    /// Spotify answers 403 to the creation when the login lacks `playlist-modify-private`: nothing was created then.
    public func savePlaylist(named name: String, uris: [String]) throws(ProviderError) -> SavedPlaylist? {
        let partyId = try party()
        let user = try client.decode(SpotifyAPI.CurrentUser.self, try client.api("GET", "me", partyId: partyId))
        let created = try client.decode(SpotifyAPI.CreatedPlaylist.self, try client.api(
            "POST", "users/\(user.id)/playlists", json: ["name": name, "public": false, "description": "MusicVoting"],
            partyId: partyId, forbidden: .playlistScopeMissing))
        for start in stride(from: 0, to: uris.count, by: Self.urisPerPlaylistCall) {
            let batch = Array(uris[start..<min(start + Self.urisPerPlaylistCall, uris.count)])
            _ = try client.api("POST", "playlists/\(created.id)/tracks", json: ["uris": batch], partyId: partyId)
        }
        return SavedPlaylist(url: created.external_urls?.spotify ?? "https://open.spotify.com/playlist/" + created.id, saved: uris.count)
    }

    static let urisPerPlaylistCall = 100

    public func openURL(of track: Track) -> String? { "https://open.spotify.com/track/" + track.id }

    /// Plays `uri` on the SDK device from `positionMs` (by uri and position, never a transfer that would
    /// resume a stale context), or pauses there.
    public func control(deviceId: String, uri: String?, positionMs: Int, isPlaying: Bool) throws(ProviderError) {
        let partyId = try party()
        if isPlaying, let uri {
            _ = try client.api("PUT", "me/player/play", query: ["device_id": deviceId],
                               json: ["uris": [uri], "position_ms": positionMs], partyId: partyId)
        } else {
            _ = try client.api("PUT", "me/player/pause", query: ["device_id": deviceId], partyId: partyId)
        }
    }
}
