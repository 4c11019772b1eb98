extension ProviderError {
    /// What the host or guest reads (SPEC: German, shown verbatim), wherever the error surfaces: an HTTP
    /// answer, a `playback-error` event, the refill's notice.
    public var userMessage: String {
        switch self {
        case .notConfigured: return "Anbieter nicht konfiguriert."
        case .unavailable(let message): return message
        case .quotaExceeded: return "Das YouTube-Kontingent für heute ist aufgebraucht. Bitte später noch einmal versuchen."
        case .rateLimited: return "Der Musikdienst bittet um eine kurze Pause. Bitte gleich noch einmal versuchen."
        case .deviceNotFound: return "Spotify findet den Monitor nicht. Bitte die Monitor-Seite neu laden."
        case .notLoggedIn: return "Spotify ist noch nicht verbunden. Der Host muss sich anmelden."
        case .busy: return "Der Musikdienst ist gerade ausgelastet. Bitte gleich noch einmal versuchen."
        case .searchRateLimited: return "Zu viele Suchen — bitte kurz warten."
        case .sessionExpired: return "Spotify-Sitzung abgelaufen. Bitte neu anmelden."
        case .playlistScopeMissing:
            return "Die Spotify-Anmeldung dieser Party darf keine Playlists anlegen. Bitte Spotify neu verbinden, dann klappt das Speichern."
        }
    }

    /// The stable `code` of the error body and of `playback-error` events: pages show their own text for it.
    public var code: String {
        switch self {
        case .notConfigured: return "provider_not_configured"
        case .unavailable: return "provider_unavailable"
        case .quotaExceeded: return "quota_exceeded"
        case .rateLimited: return "provider_rate_limited"
        case .deviceNotFound: return "provider_device_not_found"
        case .notLoggedIn: return "provider_not_logged_in"
        case .busy: return "provider_busy"
        case .searchRateLimited: return "search_rate_limited"
        case .sessionExpired: return "provider_session_expired"
        case .playlistScopeMissing: return "playlist_scope_missing"
        }
    }
}
