import JSONKit

/// The one error shape every handler throws; rendered as SPEC's `{"error": …, "code": …}`.
public struct HTTPError: Error, Equatable, Sendable {
    public var status: Int
    public var message: String
    public var code: String?
    public var headers: [(String, String)]
    /// Members after `error` and `code` that tell a client how to go on (R10a: where the waiting copy is).
    public var fields: [(String, JSON)]

    public init(status: Int, message: String, code: String? = nil, headers: [(String, String)] = [],
                fields: [(String, JSON)] = []) {
        self.status = status
        self.message = message
        self.code = code
        self.headers = headers
        self.fields = fields
    }

    public static func == (left: HTTPError, right: HTTPError) -> Bool {
        left.status == right.status && left.message == right.message && left.code == right.code
    }

    public static let notFound = HTTPError(status: 404, message: "Not found", code: "not_found")
    public static let methodNotAllowed = HTTPError(status: 405, message: "Method not allowed", code: "method_not_allowed")
    public static let malformedRequest = HTTPError(status: 400, message: "Ungültige Anfrage.", code: "malformed_request")
    /// The same body libmicrohttpd's own 431 gets (ErrorBodies.c).
    public static let requestHeadTooLarge = HTTPError(status: 431, message: "Anfrage zu groß.", code: "request_too_big")
    public static let payloadTooLarge = HTTPError(status: 413, message: "Request body too large", code: "payload_too_large")
}
