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
        }
    }
}
