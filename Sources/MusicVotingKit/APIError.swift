import Foundation

/// A failed call. `server` carries the server's own `{"error"}` message, verbatim: never re-localised.
public enum APIError: Error, Equatable, Sendable {
    case server(status: Int, message: String, code: String?, retryAfter: Int?)
    /// The server could not be reached (no answer at all).
    case network(String)
    /// An answer that is not the expected JSON.
    case invalidResponse(String)
    /// No whole answer within `ResponseLimits.deadline` (a server trickling bytes, or none at all).
    case timedOut
    /// An answer longer than `ResponseLimits.maximumBodyBytes`.
    case tooLarge

    public var status: Int? { if case .server(let status, _, _, _) = self { return status } else { return nil } }
    public var serverMessage: String? { if case .server(_, let message, _, _) = self { return message } else { return nil } }
    public var code: String? { if case .server(_, _, let code, _) = self { return code } else { return nil } }
}
