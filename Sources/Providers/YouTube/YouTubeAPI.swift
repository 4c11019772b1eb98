/// The parts of the YouTube Data API v3 responses we read (search.list, videos.list, playlistItems.list).
enum YouTubeAPI {
    struct SearchListResponse: Decodable {
        struct Item: Decodable {
            struct Identifier: Decodable { let videoId: String? }
            let id: Identifier
        }
        let items: [Item]
    }

    struct VideoListResponse: Decodable {
        struct Video: Decodable {
            struct Snippet: Decodable {
                struct Thumbnail: Decodable { let url: String }
                let title: String
                let channelTitle: String?
                let thumbnails: [String: Thumbnail]?
            }
            struct ContentDetails: Decodable { let duration: String }
            struct Status: Decodable { let embeddable: Bool? }
            let id: String
            let snippet: Snippet
            let contentDetails: ContentDetails?
            let status: Status?
        }
        let items: [Video]
    }

    struct PlaylistItemListResponse: Decodable {
        struct Item: Decodable {
            struct ContentDetails: Decodable { let videoId: String }
            let contentDetails: ContentDetails
        }
        let items: [Item]
    }

    struct ErrorResponse: Decodable {
        struct Body: Decodable {
            struct Reason: Decodable { let reason: String? }
            let code: Int?
            let errors: [Reason]?
        }
        let error: Body
    }
}
