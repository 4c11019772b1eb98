import PartyCore

/// A playlist the host can pick as the party's default (R15 refill source).
public struct Playlist: Equatable, Sendable {
    public var id: String
    public var name: String
    public var trackCount: Int
    public var imageURL: String?

    public init(id: String, name: String, trackCount: Int, imageURL: String?) {
        self.id = id
        self.name = name
        self.trackCount = trackCount
        self.imageURL = imageURL
    }
}

/// Why a provider could not answer.
public enum ProviderError: Error, Equatable, Sendable {
    /// SPEC: 503 `Anbieter nicht konfiguriert.`
    case notConfigured
    case unavailable(String)
    /// YouTube's daily quota is used up.
    case quotaExceeded
    /// The service asked us to slow down (Spotify 429 with Retry-After).
    case rateLimited(retryAfterSeconds: Int)
    /// The host's login is gone (revoked or expired refresh token).
    case sessionExpired
    /// The host has not logged in to the provider for this party yet.
    case notLoggedIn
    /// The player device the server wanted to control is gone (Spotify 404 on /me/player).
    case deviceNotFound
    /// R32: the host's login may not create playlists (it was made before the server asked for that scope).
    case playlistScopeMissing
    /// This server already has as many calls to the service under way as it allows.
    case busy
    /// A guest or the party searched the service more often than the server allows (quota).
    case searchRateLimited(retryAfterSeconds: Int)
}

/// What every music source offers a party (SPEC "Providers").
public protocol MusicProvider: Sendable {
    /// The name parties use in `POST /api/party {"provider"}`.
    var name: String { get }
    /// Whether credentials are present; an unconfigured provider is not offered on the start page.
    var isConfigured: Bool { get }
    /// Whether calls go over the network (the server then runs them off its HTTP threads).
    var isRemote: Bool { get }
    /// Matching tracks; an empty query answers the top 10.
    func search(_ query: String) throws(ProviderError) -> [Track]
    /// What `search` would answer from memory, without a call to the service; nil when it would have to call.
    func cachedSearch(_ query: String) -> [Track]?
    /// R13: the only way a song enters a queue is by a uri this returns a track for.
    func track(uri: String) throws(ProviderError) -> Track?
    /// The uri of the track with provider id `id` (`GET …/track/{trackId}`).
    func uri(forTrackId id: String) -> String
    /// R15: refill source when no default playlist is set.
    func charts() throws(ProviderError) -> [Track]
    func playlists() throws(ProviderError) -> [Playlist]
    func playlistTracks(id: String) throws(ProviderError) -> [Track]
    /// The provider acting for one party (a per-party login); most providers are the same for every party.
    func bound(to partyId: String) -> any MusicProvider
    /// R32: saves `uris` in order as a new private playlist named `name` in the host's account; nil when the provider
    /// has no playlists to save to.
    func savePlaylist(named name: String, uris: [String]) throws(ProviderError) -> SavedPlaylist?
    /// R32: where a player outside the party opens the track (the service's own page); nil for audio this server
    /// serves itself.
    func openURL(of track: Track) -> String?
}

/// R32: a playlist saved in the host's account.
public struct SavedPlaylist: Equatable, Sendable {
    public var url: String
    public var saved: Int

    public init(url: String, saved: Int) {
        self.url = url
        self.saved = saved
    }
}

extension MusicProvider {
    public var isRemote: Bool { false }
    /// A provider without a cache never answers from one.
    public func cachedSearch(_ query: String) -> [Track]? { nil }
    public func bound(to partyId: String) -> any MusicProvider { self }
    public func savePlaylist(named name: String, uris: [String]) throws(ProviderError) -> SavedPlaylist? { nil }
    public func openURL(of track: Track) -> String? { nil }
}

/// Where a provider keeps a party's OAuth tokens (the server's database; R7 persists, R5 deletes).
public protocol TokenVault: Sendable {
    func tokens(partyId: String) -> ProviderTokens?
    func save(_ tokens: ProviderTokens, partyId: String)
    func delete(partyId: String)
}
