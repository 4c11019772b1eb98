import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Every API call of SPEC as a typed `async` function. Host calls send `Authorization: Bearer <hostPin>` when a
/// host PIN is set, and no header when none is; refusals surface as `APIError.server` with the server's message.
/// Every answer is bounded by `limits` (size and a total deadline), and the PIN never follows a redirect to another
/// origin (`BoundedLoader`).
public struct MusicVotingClient: Sendable {
    public let baseURL: URL
    public var hostPin: String?
    public var limits: ResponseLimits
    let loader: BoundedLoader

    public init(baseURL: URL, hostPin: String? = nil, limits: ResponseLimits = .api, loader: BoundedLoader = .shared) {
        self.baseURL = baseURL
        self.hostPin = hostPin
        self.limits = limits
        self.loader = loader
    }

    // MARK: Party

    public func createParty(provider: String) async throws(APIError) -> CreatedParty {
        try await send("POST", "/api/party", body: ["provider": provider])
    }
    /// R9b, R17a, R33: a party with its own rules from the start.
    public func createParty(provider: String, settings: PartySettings) async throws(APIError) -> CreatedParty {
        try await send("POST", "/api/party", body: NewParty(provider: provider, fairQueue: settings.fairQueue, vetoShare: settings.vetoShare,
                                                            history: settings.history))
    }
    public func settings(_ id: String) async throws(APIError) -> PartySettings { try await send("GET", party(id, "/settings")) }
    /// The host changes the rules live; answers them as stored.
    public func updateSettings(_ id: String, _ settings: PartySettings) async throws(APIError) -> PartySettings {
        try await send("PUT", party(id, "/settings"), body: settings, host: true)
    }
    public func join(pin: String) async throws(APIError) -> JoinedParty { try await send("GET", "/api/party/join/\(pin)") }
    public func hostJoin(hostPin: String) async throws(APIError) -> HostJoinedParty {
        try await send("GET", "/api/party/host-join/\(hostPin)")
    }
    public func party(_ id: String) async throws(APIError) -> PartyInfo { try await send("GET", party(id, ""), host: true) }
    public func endParty(_ id: String) async throws(APIError) { try await sendEmpty("DELETE", party(id, ""), host: true) }
    public func qrCode(_ id: String) async throws(APIError) -> Data { try await raw("GET", party(id, "/qr")) }
    public func setDefaultPlaylist(_ id: String, playlistId: String) async throws(APIError) {
        try await sendEmpty("PUT", party(id, "/default-playlist"), body: ["playlistId": playlistId], host: true)
    }

    // MARK: Songs

    /// Items that are null or not a track are skipped (a provider may list unavailable songs).
    public func search(_ id: String, query: String) async throws(APIError) -> [Track] {
        let answer: SearchAnswer = try await send("GET", party(id, "/track/search"), query: [URLQueryItem(name: "q", value: query)])
        return answer.tracks.items.elements
    }
    public func track(_ id: String, trackId: String) async throws(APIError) -> Track { try await send("GET", party(id, "/track/\(trackId)")) }
    public func add(_ id: String, uri: String, deviceId: String) async throws(APIError) {
        try await sendEmpty("POST", party(id, "/track/addToPlaylist"), body: ["uri": uri, "deviceId": deviceId])
    }
    public func queue(_ id: String, deviceId: String? = nil) async throws(APIError) -> [QueueEntry] {
        let answer: QueueAnswer = try await send("GET", party(id, "/track/queue"), query: deviceId.map { [URLQueryItem(name: "deviceId", value: $0)] } ?? [])
        return answer.queue.elements
    }
    /// R18b: the queue with this device's `mine` marks and its add budget.
    public func guestQueue(_ id: String, deviceId: String) async throws(APIError) -> GuestQueue {
        let answer: QueueAnswer = try await send("GET", party(id, "/track/queue"), query: [URLQueryItem(name: "deviceId", value: deviceId)])
        return GuestQueue(entries: answer.queue.elements, budget: answer.budget)
    }
    /// R18b: takes back this device's own waiting song, without the host PIN (403 for another's or the playing one).
    public func removeOwn(_ id: String, uri: String, deviceId: String) async throws(APIError) {
        try await sendEmpty("DELETE", party(id, "/track/remove"), body: ["uri": uri, "deviceId": deviceId])
    }
    public func vote(_ id: String, uri: String, deviceId: String) async throws(APIError) -> VoteResult {
        try await send("POST", party(id, "/track/vote"), body: ["uri": uri, "deviceId": deviceId])
    }
    /// R17a: toggles this device's veto; at `vetoNeeded` the song is skipped (playing) or removed (waiting).
    public func veto(_ id: String, uri: String, deviceId: String) async throws(APIError) -> VetoResult {
        try await send("POST", party(id, "/track/veto"), body: ["uri": uri, "deviceId": deviceId])
    }
    /// R30 (host): bans whoever added the entry, without naming them.
    public func ban(_ id: String, entryId: String) async throws(APIError) -> BanResult {
        try await send("POST", party(id, "/ban"), body: ["entryId": entryId], host: true)
    }
    /// R30 (host): lifts every ban of the party.
    public func liftBans(_ id: String) async throws(APIError) { try await sendEmpty("DELETE", party(id, "/bans"), host: true) }
    public func remove(_ id: String, uri: String) async throws(APIError) {
        try await sendEmpty("DELETE", party(id, "/track/remove"), body: ["uri": uri], host: true)
    }
    /// R32 (host): saves the uris (1–500, in order) as a new private playlist of the party's provider; 501 where the
    /// provider has none, 409 (with the login link in the message's body) when the login may not create playlists.
    public func saveToPlaylist(_ id: String, uris: [String]) async throws(APIError) -> SavedPlaylist {
        try await send("POST", party(id, "/track/saveToPlaylist"), body: uris, host: true)
    }
    /// R32 (host): the waiting queue as a playlist file.
    public func exportPlaylist(_ id: String, format: PlaylistFormat) async throws(APIError) -> Data {
        try await raw("GET", party(id, "/export." + format.rawValue), host: true)
    }
    public func current(_ id: String) async throws(APIError) -> CurrentPlayback { try await send("GET", party(id, "/track/current")) }

    // MARK: Playback (host)

    public func start(_ id: String) async throws(APIError) -> PlaybackResult { try await send("POST", party(id, "/track/start"), host: true) }
    public func next(_ id: String) async throws(APIError) -> PlaybackResult { try await send("POST", party(id, "/track/next"), host: true) }
    public func pause(_ id: String) async throws(APIError) -> PauseResult { try await send("POST", party(id, "/track/pause"), host: true) }
    public func resume(_ id: String) async throws(APIError) -> PauseResult { try await send("POST", party(id, "/track/resume"), host: true) }
    public func play(_ id: String, uri: String) async throws(APIError) {
        try await sendEmpty("PUT", party(id, "/track/play"), body: ["uri": uri], host: true)
    }
    public func prepareNext(_ id: String) async throws(APIError) { try await sendEmpty("POST", party(id, "/track/prepare-next"), host: true) }
    public func registerMonitor(_ id: String, deviceId: String) async throws(APIError) -> DeviceRegistration {
        try await send("PUT", party(id, "/device"), body: ["deviceId": deviceId, "kind": "monitor"], host: true)
    }
    public func reportProgress(_ id: String, token: String, positionMs: Int, durationMs: Int, paused: Bool) async throws(APIError) {
        var client = self
        client.hostPin = token
        try await client.sendEmpty("POST", party(id, "/track/progress"),
                                   body: ProgressReport(position: positionMs, duration: durationMs, paused: paused), host: true)
    }

    // MARK: Blacklist, Spotify (host)

    public func blacklist(_ id: String) async throws(APIError) -> [String] {
        let answer: Words = try await send("GET", party(id, "/blacklist"), host: true)
        return answer.words
    }
    public func addBlacklistWord(_ id: String, word: String) async throws(APIError) -> [String] {
        let answer: Words = try await send("PUT", party(id, "/blacklist"), body: ["word": word], host: true)
        return answer.words
    }
    public func removeBlacklistWord(_ id: String, word: String) async throws(APIError) -> [String] {
        let answer: Words = try await send("DELETE", party(id, "/blacklist"), body: ["word": word], host: true)
        return answer.words
    }
    public func spotifyLoggedIn(_ id: String) async throws(APIError) -> Bool {
        let answer: LoginStatus = try await send("GET", party(id, "/spotify/status"), host: true)
        return answer.loggedIn
    }
    /// The Spotify access token for the monitor's player (host PIN or monitor token, R28): a bare string.
    public func spotifyToken(_ id: String) async throws(APIError) -> String {
        String(decoding: try await raw("GET", party(id, "/spotify/token"), host: true), as: UTF8.self)
    }
    public func setSpotifyDevice(_ id: String, deviceId: String) async throws(APIError) {
        var request = try request("PUT", party(id, "/spotify/deviceId"), host: true)
        request.setValue("text/plain", forHTTPHeaderField: "Content-Type")
        request.httpBody = Data(deviceId.utf8)
        _ = try await perform(request)
    }
    public func playlists(_ id: String) async throws(APIError) -> [Playlist] {
        let answer: Playlists = try await send("GET", party(id, "/spotify/playlists"), host: true)
        return answer.playlists
    }
    /// Where the browser goes to log the party in with Spotify (`source=ios` returns to the app).
    public func spotifyLoginURL(_ id: String, installationId: String) -> URL {
        var components = URLComponents(url: baseURL.appendingPathComponent(party(id, "/spotify/login")), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "source", value: "ios"), URLQueryItem(name: "installationId", value: installationId)]
        return components.url!
    }
    public func health() async throws(APIError) -> Bool {
        let answer: [String: String] = try await send("GET", "/healthz")
        return answer["status"] == "ok"
    }

    // MARK: Transport

    func party(_ id: String, _ suffix: String) -> String { "/api/party/\(id)\(suffix)" }

    func request(_ method: String, _ path: String, query: [URLQueryItem] = [], body: (any Encodable & Sendable)? = nil,
                 host: Bool = false) throws(APIError) -> URLRequest {
        var components = URLComponents(url: baseURL.appendingPathComponent(path), resolvingAgainstBaseURL: false)
        if !query.isEmpty { components?.queryItems = query }
        guard let url = components?.url else { throw .invalidResponse("bad path \(path)") }
        var request = URLRequest(url: url)
        request.httpMethod = method
        request.timeoutInterval = 15
        if host, let hostPin {
            // A PIN or monitor token may come from a server's answer: nothing that could break the header goes out.
            guard HeaderValue.isSafe(hostPin) else { throw .invalidResponse("a host PIN no header can carry") }
            request.setValue("Bearer \(hostPin)", forHTTPHeaderField: "Authorization")
        }
        if let body {
            request.setValue("application/json", forHTTPHeaderField: "Content-Type")
            do { request.httpBody = try JSONEncoder().encode(body) } catch { throw .invalidResponse("cannot encode the request") }
        }
        return request
    }

    func raw(_ method: String, _ path: String, query: [URLQueryItem] = [], body: (any Encodable & Sendable)? = nil,
             host: Bool = false) async throws(APIError) -> Data {
        try await perform(try request(method, path, query: query, body: body, host: host))
    }

    func perform(_ request: URLRequest) async throws(APIError) -> Data {
        let (data, http) = try await loader.load(request, limits: limits)
        guard (200..<300).contains(http.statusCode) else {
            let shape = try? JSONDecoder().decode(ErrorShape.self, from: data)
            throw .server(status: http.statusCode, message: shape?.error ?? HTTPURLResponse.localizedString(forStatusCode: http.statusCode),
                          code: shape?.code, retryAfter: http.value(forHTTPHeaderField: "Retry-After").flatMap { Int($0) })
        }
        return data
    }

    func send<Answer: Decodable>(_ method: String, _ path: String, query: [URLQueryItem] = [],
                                 body: (any Encodable & Sendable)? = nil, host: Bool = false) async throws(APIError) -> Answer {
        let data = try await raw(method, path, query: query, body: body, host: host)
        do { return try JSONDecoder().decode(Answer.self, from: data) } catch {
            throw .invalidResponse("unexpected answer to \(method) \(path)")
        }
    }

    func sendEmpty(_ method: String, _ path: String, body: (any Encodable & Sendable)? = nil, host: Bool = false) async throws(APIError) {
        _ = try await raw(method, path, body: body, host: host)
    }
}

struct ErrorShape: Decodable { let error: String; let code: String? }
struct SearchAnswer: Decodable { struct Tracks: Decodable { let items: LossyArray<Track> }; let tracks: Tracks }
struct QueueAnswer: Decodable { let queue: LossyArray<QueueEntry>; let budget: AddBudget? }
struct Words: Decodable { let words: [String] }
struct LoginStatus: Decodable { let loggedIn: Bool }
struct Playlists: Decodable { let playlists: [Playlist] }
struct NewParty: Encodable, Sendable { let provider: String; let fairQueue: Bool; let vetoShare: Double; let history: Bool }
struct ProgressReport: Encodable, Sendable { let position: Int; let duration: Int; let paused: Bool }

/// An array whose null or malformed items are skipped instead of failing the whole answer.
struct LossyArray<Element: Decodable>: Decodable {
    let elements: [Element]
    init(from decoder: any Decoder) throws {
        var container = try decoder.unkeyedContainer()
        var elements: [Element] = []
        while !container.isAtEnd {
            if let element = try? container.decode(Element.self) { elements.append(element) } else { _ = try? container.decode(Skip.self) }
        }
        self.elements = elements
    }
    /// Takes any value (null, a number, an object of another shape) without looking at it, so the container moves on.
    private struct Skip: Decodable { init(from decoder: any Decoder) throws {} }
}
