/// A handler answers one request; it throws `HTTPError` for every refusal.
public typealias Handler = @Sendable (Request) throws(HTTPError) -> Response

/// Routes by method and path pattern (`/api/party/{id}/qr`); unknown paths 404, wrong methods 405.
public struct Router: Sendable {
    struct Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Substring]
        let summary: String
        let security: String?
        let handler: Handler
    }

    private var routes: [Route] = []
    /// Answers a GET for an unknown path from a client that accepts HTML (a browser's address bar): a page
    /// in its language instead of the JSON error. API clients and scripts keep the JSON shape.
    public var notFoundPage: (@Sendable (Request) -> Response)?

    public init() {}

    /// Registers a route; `summary` and `security` (the scheme name, nil for public) feed the OpenAPI document.
    public mutating func add(_ method: String, _ pattern: String, summary: String = "", security: String? = nil,
                             _ handler: @escaping Handler) {
        routes.append(Route(method: method, pattern: pattern, segments: Self.split(pattern), summary: summary,
                            security: security, handler: handler))
    }

    var registered: [Route] { routes }

    /// The matched route's pattern (safe to log: no PINs or ids) and its handler, or the 404/405 error.
    public func resolve(_ request: Request) -> Result<(pattern: String, handler: Handler, parameters: [String: String]), HTTPError> {
        let segments = Self.split(request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        var pathMatched = false
        for route in routes {
            guard let parameters = Self.match(route.segments, segments) else { continue }
            pathMatched = true
            if route.method == method { return .success((route.pattern, route.handler, parameters)) }
        }
        return .failure(pathMatched ? .methodNotAllowed : .notFound)
    }

    /// What the access log names a request that matched no route: never its raw path, which can carry a
    /// PIN or, URL-decoded, a line break that forges log lines (issue 10).
    public static let unmatchedRoute = "(no route)"

    /// Runs the request through its route.
    public func handle(_ request: Request) -> (pattern: String, response: Response) {
        switch resolve(request) {
        case .failure(let error):
            if error.status == 404, let notFoundPage, request.method == "GET" || request.method == "HEAD",
               request.header("accept")?.contains("text/html") == true {
                return (Self.unmatchedRoute, notFoundPage(request))
            }
            return (Self.unmatchedRoute, Response(error: error))
        case .success(let route):
            var routed = request
            routed.parameters = route.parameters
            do { return (route.pattern, try route.handler(routed)) } catch { return (route.pattern, Response(error: error)) }
        }
    }

    private static func split(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    private static func match(_ pattern: [Substring], _ path: [Substring]) -> [String: String]? {
        // A trailing `{rest*}` segment matches the remainder of the path (static files).
        if let last = pattern.last, last.hasPrefix("{"), last.hasSuffix("*}") {
            guard path.count >= pattern.count - 1 else { return nil }
            guard var parameters = match(Array(pattern.dropLast()), Array(path.prefix(pattern.count - 1))) else { return nil }
            parameters[String(last.dropFirst().dropLast(2))] = path.dropFirst(pattern.count - 1).joined(separator: "/")
            return parameters
        }
        guard pattern.count == path.count else { return nil }
        var parameters: [String: String] = [:]
        for (expected, actual) in zip(pattern, path) {
            if expected.hasPrefix("{") && expected.hasSuffix("}") {
                parameters[String(expected.dropFirst().dropLast())] = String(actual)
            } else if expected != actual {
                return nil
            }
        }
        return parameters
    }
}
