import PartyCore

/// The parts of Spotify's Accounts and Web API responses we read.
enum SpotifyAPI {
    struct TokenResponse: Decodable {
        let access_token: String
        let expires_in: Int
        let refresh_token: String?
    }

    struct TokenError: Decodable {
        let error: String
    }

    struct Image: Decodable { let url: String }

    struct TrackObject: Decodable {
        struct Artist: Decodable { let name: String }
        struct Album: Decodable {
            let name: String
            let images: [Image]?
        }
        let id: String?
        let uri: String
        let name: String
        let duration_ms: Int
        let artists: [Artist]
        let album: Album?
        let is_local: Bool?
        /// R10a: Spotify names the recording's ISRC here.
        let external_ids: ExternalIDs?
        struct ExternalIDs: Decodable { let isrc: String? }

        var track: Track? {
            guard let id, is_local != true, uri.hasPrefix(SpotifyProvider.uriPrefix) else { return nil }
            return Track(id: id, uri: uri, name: name, artists: artists.map(\.name), album: album?.name ?? "",
                         imageURL: album?.images?.first?.url, durationMs: duration_ms,
                         isrc: external_ids?.isrc)
        }
    }

    /// Search pages may hold `null` items; they are skipped.
    struct SearchResponse: Decodable {
        struct Page: Decodable { let items: [TrackObject?] }
        let tracks: Page
    }

    struct TopTracksResponse: Decodable { let items: [TrackObject?] }

    struct PlaylistsResponse: Decodable {
        struct PlaylistObject: Decodable {
            struct Tracks: Decodable { let total: Int }
            let id: String
            let name: String
            let images: [Image]?
            let tracks: Tracks?
        }
        let items: [PlaylistObject?]
    }

    struct PlaylistTracksResponse: Decodable {
        struct Item: Decodable { let track: TrackObject? }
        let items: [Item?]
    }

    /// `GET /v1/me`: the host's user id, which names where a new playlist goes (R32).
    struct CurrentUser: Decodable { let id: String }

    /// `POST /v1/users/{user_id}/playlists` answers the new playlist object.
    struct CreatedPlaylist: Decodable {
        struct ExternalURLs: Decodable { let spotify: String? }
        let id: String
        let external_urls: ExternalURLs?
    }
}
