import Foundation
import HTTPServer
import PartyCore
import PartyEngine
import PartyStore
import Providers

/// The one place where domain, provider and storage errors become HTTP answers (SPEC messages verbatim).
enum ErrorMapping {
    static func httpError(_ error: any Error, context: String) -> HTTPError {
        switch error {
        case let error as HTTPError: return error
        case let error as PartyError: return httpError(error)
        case let error as ProviderError: return httpError(error)
        case let error as DatabaseError where error.isConnectionFailure || error.isTimeout:
            // PostgreSQL is down or restarting (the store opens its connection again on the next request), or a
            // statement waited past its deadline on a lock or a slow disk: either way, again in a moment.
            Log.error("\(context): \(error)")
            return HTTPError(status: 503, message: "Die Datenbank ist gerade nicht erreichbar. Bitte gleich noch einmal versuchen.",
                             code: "database_unavailable", headers: [("Retry-After", "2")])
        default:
            // Never a silent 500: the cause goes to the log with the route it happened on.
            Log.error("\(context): \(error)")
            return HTTPError(status: 500, message: "Interner Fehler.", code: "internal")
        }
    }

    static func httpError(_ error: PartyError) -> HTTPError {
        switch error {
        case .missingProvider: return HTTPError(status: 400, message: "Missing provider", code: "missing_provider")
        case .invalidProvider(let offered):
            let list = offered.map { "'\($0)'" }
            let text = list.count <= 1 ? list.joined() : list.dropLast().joined(separator: ", ") + " or " + list[list.count - 1]
            return HTTPError(status: 400, message: "Invalid provider: must be \(text)", code: "invalid_provider")
        case .pinsExhausted: return HTTPError(status: 503, message: "Could not generate unique PINs — please retry", code: "pins_exhausted")
        case .partyNotFound: return HTTPError(status: 404, message: "Party nicht gefunden.", code: "party_not_found")
        case .duplicate(let existingUri, let position):
            // R10a: where the waiting copy is, so clients offer to like it.
            return HTTPError(status: 409, message: "Song ist schon in der Warteschlange.", code: "duplicate",
                             fields: [("existingUri", .string(existingUri)), ("position", .integer(position))])
        case .rateLimited(let seconds):
            return HTTPError(status: 429, message: "Zu viele Anfragen — bitte kurz warten.", code: "rate_limited",
                             headers: [("Retry-After", String(seconds))])
        case .tooManyNewGuests(let seconds):
            return HTTPError(status: 429, message: "Zu viele Anfragen — bitte kurz warten.", code: "too_many_new_guests",
                             headers: [("Retry-After", String(seconds))])
        case .blacklisted: return HTTPError(status: 403, message: "Nicht erlaubt.", code: "blacklisted")
        case .banned: return HTTPError(status: 403, message: "Nicht erlaubt.", code: "banned")
        case .vetoOff: return HTTPError(status: 409, message: "Veto ist in dieser Party ausgeschaltet.", code: "veto_off")
        case .historyOff: return HTTPError(status: 409, message: "Verlauf ist in dieser Party ausgeschaltet.", code: "history_off")
        case .ownSong: return HTTPError(status: 403, message: "Den eigenen Song kannst du nicht wegwählen.", code: "own_song")
        case .notAGuestSong:
            return HTTPError(status: 409, message: "Diesen Song hat kein Gast hinzugefügt.", code: "not_a_guest_song")
        case .alreadyPending: return HTTPError(status: 409, message: "Song wartet schon auf Freigabe.", code: "already_pending")
        case .notPending: return HTTPError(status: 404, message: "Song wartet nicht mehr auf Freigabe.", code: "not_pending")
        case .invalidNickname:
            return HTTPError(status: 400, message: "Spitzname: 1 bis 24 Zeichen, ohne Steuer- und unsichtbare Zeichen.", code: "invalid_nickname")
        case .nicknameNotAllowed: return HTTPError(status: 403, message: "Nicht erlaubt.", code: "nickname_not_allowed")
        case .nicknameTaken: return HTTPError(status: 409, message: "Spitzname ist schon vergeben.", code: "nickname_taken")
        case .nicknamesOff: return HTTPError(status: 409, message: "Spitznamen sind in dieser Party ausgeschaltet.", code: "nicknames_off")
        case .notOwnEntry: return HTTPError(status: 403, message: "Nicht erlaubt.", code: "not_own_entry")
        case .notInQueue: return HTTPError(status: 404, message: "Song nicht in der Warteschlange.", code: "not_in_queue")
        case .noPlaybackDevice: return HTTPError(status: 409, message: "Kein Wiedergabegerät verbunden.", code: "no_device")
        case .hostAuthorizationMissing:
            return HTTPError(status: 401, message: "Host-PIN fehlt.", code: "unauthorized", headers: [("WWW-Authenticate", "Bearer")])
        case .hostPinWrong: return HTTPError(status: 403, message: "Falsche Host-PIN.", code: "forbidden")
        case .tooManyAttempts(let seconds):
            return HTTPError(status: 429, message: "Zu viele Versuche — bitte kurz warten.", code: "too_many_attempts",
                             headers: [("Retry-After", String(seconds))])
        case .pinGuessingUnderWay(let seconds):
            return HTTPError(status: 429, message: "Gerade probieren viele Geräte falsche Host-PINs für diese Party. Auf einem Gerät, das schon angemeldet war, geht es weiter; hier bitte in \(seconds) s noch einmal.",
                             code: "pin_guessing", headers: [("Retry-After", String(seconds))])
        case .pinChecksExhausted:
            return HTTPError(status: 429, message: "Für diese Party wurden zu viele falsche Host-PINs probiert. Anmelden geht nur noch auf einem Gerät, das schon angemeldet war, oder mit einem Link, den „musicvoting host-link“ auf dem Server erzeugt.",
                             code: "pin_checks_exhausted", headers: [("Retry-After", "3600")])
        case .tooManyUris(let limit):
            return HTTPError(status: 400, message: "Höchstens \(limit) Songs auf einmal.", code: "too_many_uris")
        case .noTracks: return HTTPError(status: 400, message: "No tracks provided", code: "no_tracks")
        case .missingUri: return HTTPError(status: 400, message: "Missing uri", code: "missing_uri")
        case .missingUriOrDevice: return HTTPError(status: 400, message: "Missing uri or deviceId", code: "missing_uri_or_device")
        case .trackNotFound: return HTTPError(status: 404, message: "Song nicht gefunden.", code: "track_not_found")
        case .invalidUri: return HTTPError(status: 400, message: "Ungültige Song-URI.", code: "invalid_uri")
        case .invalidInput(let message): return HTTPError(status: 400, message: message, code: "invalid_input")
        case .tooManyStreams:
            return HTTPError(status: 429, message: "Zu viele offene Verbindungen — bitte andere Tabs schließen.", code: "too_many_streams",
                             headers: [("Retry-After", "10")])
        case .pairingNotFound:
            return HTTPError(status: 404, message: "Code unbekannt oder abgelaufen.", code: "pairing_not_found")
        case .tooManyPairings(let seconds):
            return HTTPError(status: 429, message: "Zu viele Anfragen — bitte kurz warten.", code: "too_many_pairings",
                             headers: [("Retry-After", String(seconds))])
        case .monitorConnected:
            return HTTPError(status: 409, message: "Es ist schon ein Fernseher verbunden.", code: "monitor_connected")
        case .monitorReplaced:
            return HTTPError(status: 403, message: "Ein anderer Fernseher spielt jetzt diese Party.", code: "monitor_replaced")
        case .cohostLimit(let limit):
            return HTTPError(status: 409, message: "Höchstens \(limit) Co-Hosts pro Party. Entferne erst einen.", code: "cohost_limit")
        case .hostOnly: return HTTPError(status: 403, message: "Das darf nur der Host.", code: "host_only")
        case .cohostRevoked:
            return HTTPError(status: 403, message: "Dieser Co-Host-Link wurde zurückgezogen.", code: "cohost_revoked")
        case .cohostNotFound: return HTTPError(status: 404, message: "Co-Host nicht gefunden.", code: "cohost_not_found")
        case .tooManyParties(let seconds):
            return HTTPError(status: 429, message: "Gerade werden zu viele Partys erstellt — bitte kurz warten.", code: "too_many_parties",
                             headers: [("Retry-After", String(seconds))])
        }
    }

    static func httpError(_ error: ProviderError) -> HTTPError {
        let (message, code) = (error.userMessage, error.code)
        switch error {
        case .notConfigured, .quotaExceeded, .notLoggedIn: return HTTPError(status: 503, message: message, code: code)
        case .unavailable: return HTTPError(status: 502, message: message, code: code)
        case .rateLimited(let seconds):
            return HTTPError(status: 503, message: message, code: code, headers: [("Retry-After", String(seconds))])
        case .deviceNotFound, .playlistScopeMissing: return HTTPError(status: 409, message: message, code: code)
        case .busy: return HTTPError(status: 503, message: message, code: code, headers: [("Retry-After", "2")])
        case .searchRateLimited(let seconds):
            return HTTPError(status: 429, message: message, code: code, headers: [("Retry-After", String(seconds))])
        case .sessionExpired: return HTTPError(status: 401, message: message, code: code)
        }
    }
}
