import Foundation

/// A host's Spotify app (developer dashboard): client id, optional secret, the redirect URI registered
/// there, and the service bases (configurable so tests use local fakes).
public struct SpotifyConfiguration: Sendable {
    public static let defaultAccountsBase = URL(string: "https://accounts.spotify.com")!
    public static let defaultAPIBase = URL(string: "https://api.spotify.com/v1")!
    /// The Web Playback SDK needs streaming + user-read-email + user-read-private; control needs the
    /// playback-state scopes; the default-playlist picker reads the host's playlists; charts use top tracks; saving
    /// the queue creates a private playlist (R32).
    public static let scopes = ["streaming", "user-read-email", "user-read-private", "user-read-playback-state",
                                "user-modify-playback-state", "playlist-read-private", "playlist-read-collaborative",
                                "user-top-read", "playlist-modify-private"]

    public var clientId: String
    public var clientSecret: String?
    public var redirectURI: String
    public var accountsBase: URL
    public var apiBase: URL

    public init(clientId: String, clientSecret: String?, redirectURI: String,
                accountsBase: URL = defaultAccountsBase, apiBase: URL = defaultAPIBase) {
        self.clientId = clientId
        self.clientSecret = clientSecret
        self.redirectURI = redirectURI
        self.accountsBase = accountsBase
        self.apiBase = apiBase
    }

    /// The iOS app's callback path beside the web one.
    public var iosRedirectURI: String {
        redirectURI.hasSuffix("/api/spotify/callback") ? String(redirectURI.dropLast("callback".count)) + "ios/callback" : redirectURI
    }
}
