import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif
import PartyCore

/// Provider `youtube`: Data API v3 with an API key; the monitor plays through the IFrame Player API.
/// Searches and charts are cached, because a project gets about 100 searches a day.
public struct YouTubeProvider: MusicProvider {
    public static let uriPrefix = "youtube:video:"
    public static let defaultBase = URL(string: "https://www.googleapis.com/youtube/v3")!

    let apiKey: String
    let base: URL
    let regionCode: String
    let http: ProviderHTTP
    private let searches = ExpiringCache<[Track]>(lifetime: 30 * 60)
    private let videos = ExpiringCache<Track>(lifetime: 6 * 3600, capacity: 5000)

    public init(apiKey: String, base: URL = defaultBase, regionCode: String = "DE", http: ProviderHTTP = ProviderHTTP(provider: "youtube")) {
        self.apiKey = apiKey
        self.base = base
        self.regionCode = regionCode
        self.http = http
    }

    public var name: String { "youtube" }
    public var isConfigured: Bool { true }
    public var isRemote: Bool { true }

    public func search(_ query: String) throws(ProviderError) -> [Track] {
        if let cached = cachedSearch(query) { return cached }
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        guard !trimmed.isEmpty else { return try charts() }
        let key = Self.searchKey(trimmed)
        let found: YouTubeAPI.SearchListResponse = try get("search", [
            "part": "snippet", "type": "video", "videoCategoryId": "10", "videoEmbeddable": "true",
            "maxResults": "10", "q": trimmed,
        ])
        let tracks = try details(of: found.items.compactMap(\.id.videoId))
        searches.store(tracks, for: key)
        return tracks
    }

    public func cachedSearch(_ query: String) -> [Track]? {
        let trimmed = query.trimmingCharacters(in: .whitespacesAndNewlines)
        return searches.value(for: trimmed.isEmpty ? "charts" : Self.searchKey(trimmed))
    }

    private static func searchKey(_ trimmed: String) -> String { "search:" + SearchText.folded(trimmed) }

    public func track(uri: String) throws(ProviderError) -> Track? {
        guard uri.hasPrefix(Self.uriPrefix) else { return nil }
        let id = String(uri.dropFirst(Self.uriPrefix.count))
        guard Self.isVideoId(id) else { return nil }
        return try details(of: [id]).first
    }

    public func uri(forTrackId id: String) -> String { Self.uriPrefix + id }

    /// R32: the video's page, where the playlist file's player opens it.
    public func openURL(of track: Track) -> String? { "https://www.youtube.com/watch?v=" + track.id }

    /// R15: the most popular music videos of the region.
    public func charts() throws(ProviderError) -> [Track] {
        if let cached = searches.value(for: "charts") { return cached }
        let list: YouTubeAPI.VideoListResponse = try get("videos", [
            "part": "snippet,contentDetails,status", "chart": "mostPopular", "videoCategoryId": "10",
            "maxResults": "10", "regionCode": regionCode,
        ])
        let tracks = list.items.compactMap(Self.track)
        tracks.forEach { videos.store($0, for: $0.id) }
        searches.store(tracks, for: "charts")
        return tracks
    }

    /// The host's own playlists need OAuth; a public playlist id still works as the default playlist.
    public func playlists() throws(ProviderError) -> [Playlist] { [] }

    public func playlistTracks(id: String) throws(ProviderError) -> [Track] {
        guard !id.isEmpty, id.utf8.count <= 64, id.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "-" || $0 == "_" }) else { return [] }
        if let cached = searches.value(for: "playlist:" + id) { return cached }
        let items: YouTubeAPI.PlaylistItemListResponse = try get("playlistItems", [
            "part": "contentDetails", "playlistId": id, "maxResults": "25",
        ])
        let tracks = try details(of: items.items.map(\.contentDetails.videoId))
        searches.store(tracks, for: "playlist:" + id)
        return tracks
    }

    /// Titles, channels, thumbnails and durations (search results carry no duration), in the given order.
    private func details(of ids: [String]) throws(ProviderError) -> [Track] {
        let missing = ids.filter { videos.value(for: $0) == nil }
        if !missing.isEmpty {
            let list: YouTubeAPI.VideoListResponse = try get("videos", [
                "part": "snippet,contentDetails,status", "id": missing.joined(separator: ","),
            ])
            for track in list.items.compactMap(Self.track) { videos.store(track, for: track.id) }
        }
        return ids.compactMap { videos.value(for: $0) }
    }

    static func track(_ video: YouTubeAPI.VideoListResponse.Video) -> Track? {
        guard video.status?.embeddable != false, let duration = video.contentDetails.flatMap({ ISODuration.milliseconds($0.duration) }),
              duration > 0 else { return nil }
        let thumbnails = video.snippet.thumbnails ?? [:]
        let image = ["high", "medium", "standard", "default"].lazy.compactMap { thumbnails[$0]?.url }.first
        var channel = video.snippet.channelTitle ?? "YouTube"
        if channel.hasSuffix(" - Topic") { channel = String(channel.dropLast(" - Topic".count)) }
        return Track(id: video.id, uri: uriPrefix + video.id, name: video.snippet.title, artists: [channel],
                     album: "YouTube", imageURL: image, durationMs: duration)
    }

    static func isVideoId(_ id: String) -> Bool {
        id.utf8.count == 11 && id.allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber || $0 == "-" || $0 == "_") }
    }

    private func get<Body: Decodable>(_ resource: String, _ parameters: [String: String]) throws(ProviderError) -> Body {
        var components = URLComponents(url: base.appendingPathComponent(resource), resolvingAgainstBaseURL: false)!
        components.queryItems = parameters.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) }
            + [URLQueryItem(name: "key", value: apiKey)]
        guard let url = components.url else { throw .unavailable("YouTube-Anfrage ungültig.") }
        let reply = try http.send(URLRequest(url: url))
        guard reply.status == 200 else {
            let reasons = (try? JSONDecoder().decode(YouTubeAPI.ErrorResponse.self, from: reply.body))?.error.errors?.compactMap(\.reason) ?? []
            if reasons.contains(where: { $0 == "quotaExceeded" || $0 == "dailyLimitExceeded" || $0 == "rateLimitExceeded" }) {
                throw .quotaExceeded
            }
            throw .unavailable("YouTube antwortet gerade nicht (\(reply.status)).")
        }
        do { return try JSONDecoder().decode(Body.self, from: reply.body) } catch {
            throw .unavailable("YouTube hat unerwartet geantwortet.")
        }
    }
}
