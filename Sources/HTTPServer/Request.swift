import JSONKit

/// One HTTP request, copied out of libmicrohttpd before the handler runs.
public struct Request: Sendable {
    public var method: String
    public var path: String
    /// Query arguments, already URL-decoded; a key without value maps to "".
    public var query: [String: String]
    /// Header names are lowercased.
    public var headers: [String: String]
    public var body: [UInt8]
    public var clientAddress: String
    /// Path parameters filled in by the router (`{id}` → value).
    public var parameters: [String: String] = [:]

    public init(method: String, path: String, query: [String: String] = [:], headers: [String: String] = [:],
                body: [UInt8] = [], clientAddress: String = "127.0.0.1") {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.clientAddress = clientAddress
    }

    public func header(_ name: String) -> String? { headers[name.lowercased()] }

    public func parameter(_ name: String) -> String { parameters[name] ?? "" }

    /// The body as JSON; 400 `Invalid JSON` when it is not.
    public func json() throws(HTTPError) -> JSON {
        do { return try JSON.parse(body) } catch { throw HTTPError(status: 400, message: "Invalid JSON", code: "invalid_json") }
    }

    /// The body as JSON, or nil when the body is empty.
    public func optionalJSON() throws(HTTPError) -> JSON? {
        // Not a ternary: JSON is ExpressibleByNilLiteral, so `blank ? nil : try json()` made an empty body `.null`.
        guard body.allSatisfy({ $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }) else { return try json() }
        return Optional<JSON>.none
    }

    public var bodyText: String { String(decoding: body, as: UTF8.self) }

    /// The token of an `Authorization: Bearer <token>` header, nil when absent or not Bearer.
    public var bearerToken: String? {
        guard let value = header("authorization") else { return nil }
        let parts = value.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
        guard parts.count == 2, parts[0].lowercased() == "bearer" else { return nil }
        return String(parts[1]).trimmingSpaces
    }
}

extension String {
    var trimmingSpaces: String {
        var text = Substring(self)
        while text.first == " " { text.removeFirst() }
        while text.last == " " { text.removeLast() }
        return String(text)
    }
}
