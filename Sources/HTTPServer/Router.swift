/// A handler answers one request; it throws `HTTPError` for every refusal.
public typealias Handler = @Sendable (Request) throws(HTTPError) -> Response

/// Routes by method and path pattern (`/api/party/{id}/qr`); unknown paths 404, wrong methods 405.
public struct Router: Sendable {
    /// A class: a request looks at many routes, and a reference costs one retain where a struct copied every field.
    final class Route: Sendable {
        let method: String
        let pattern: String
        let segments: [Substring]
        let summary: String
        let security: String?
        let handler: Handler
        /// The segments before a trailing `{rest*}` (all of them without one), read once when the route is added:
        /// a request is matched against them without allocating until every literal matched.
        let fixed: [Segment]
        /// The name of a trailing `{rest*}`, which takes the remainder of the path (static files).
        let rest: String?

        enum Segment: Sendable {
            case literal(Substring)
            case parameter(String)
        }

        init(method: String, pattern: String, summary: String, security: String?, handler: @escaping Handler) {
            self.method = method
            self.pattern = pattern
            self.summary = summary
            self.security = security
            self.handler = handler
            segments = Router.split(pattern)
            var fixed = segments
            if let last = fixed.last, last.hasPrefix("{"), last.hasSuffix("*}") {
                rest = String(last.dropFirst().dropLast(2))
                fixed.removeLast()
            } else {
                rest = nil
            }
            self.fixed = fixed.map { segment in
                segment.hasPrefix("{") && segment.hasSuffix("}") ? .parameter(String(segment.dropFirst().dropLast())) : .literal(segment)
            }
        }

        /// The path's parameters when it matches, else nil.
        func match(_ path: [Substring]) -> [String: String]? {
            if rest == nil { guard path.count == fixed.count else { return nil } } else { guard path.count >= fixed.count else { return nil } }
            // Last segment first: most routes share their start (`/api/party/{id}/…`), so a route that does not match
            // is told by one comparison instead of three (a like's path met 20 such routes before its own).
            for index in fixed.indices.reversed() {
                if case .literal(let expected) = fixed[index], expected != path[index] { return nil }
            }
            var parameters: [String: String] = [:]
            for (segment, actual) in zip(fixed, path) {
                if case .parameter(let name) = segment { parameters[name] = String(actual) }
            }
            if let rest { parameters[rest] = path.dropFirst(fixed.count).joined(separator: "/") }
            return parameters
        }
    }

    private var routes: [Route] = []
    /// For each count of path segments, the routes that can match a path of that many, in the order they
    /// were added (the first match wins); longer paths than these can match only routes with `{rest*}`.
    private var candidatesBySegments: [[Route]] = []
    private var restRoutes: [Route] = []
    /// Answers a GET for an unknown path from a client that accepts HTML (a browser's address bar): a page
    /// in its language instead of the JSON error. API clients and scripts keep the JSON shape.
    public var notFoundPage: (@Sendable (Request) -> Response)?
    /// The page a browser gets under a host name the server does not answer to (`AllowedHosts`): which address
    /// to use instead and the option that allows the name.
    public var unknownHostPage: (@Sendable (Request, String) -> Response)?

    public init() {}

    /// Registers a route; `summary` and `security` (the scheme name, nil for public) feed the OpenAPI document.
    public mutating func add(_ method: String, _ pattern: String, summary: String = "", security: String? = nil,
                             _ handler: @escaping Handler) {
        let route = Route(method: method, pattern: pattern, summary: summary, security: security, handler: handler)
        routes.append(route)
        // Room for paths as long as this route's (each new slot starts with the `{rest*}` routes that reach it).
        while candidatesBySegments.count <= route.fixed.count {
            let count = candidatesBySegments.count
            candidatesBySegments.append(restRoutes.filter { $0.fixed.count <= count })
        }
        if route.rest != nil {
            restRoutes.append(route)
            for count in route.fixed.count..<candidatesBySegments.count { candidatesBySegments[count].append(route) }
        } else {
            candidatesBySegments[route.fixed.count].append(route)
        }
    }

    var registered: [Route] { routes }

    /// Every route's pattern, once each, in the order added: the fixed set of route labels a metric may carry.
    public var patterns: [String] {
        var seen: Set<String> = []
        return routes.map(\.pattern).filter { seen.insert($0).inserted }
    }

    /// The matched route's pattern (safe to log: no PINs or ids) and its handler, or the 404/405 error.
    public func resolve(_ request: Request) -> Result<(pattern: String, handler: Handler, parameters: [String: String]), HTTPError> {
        let segments = Self.split(request.path)
        let method = request.method == "HEAD" ? "GET" : request.method
        var pathMatched = false
        let candidates = segments.count < candidatesBySegments.count ? candidatesBySegments[segments.count] : restRoutes
        for route in candidates {
            guard let parameters = route.match(segments) else { continue }
            pathMatched = true
            if route.method == method { return .success((route.pattern, route.handler, parameters)) }
        }
        return .failure(pathMatched ? .methodNotAllowed : .notFound)
    }

    /// What the access log names a request that matched no route: never its raw path, which can carry a
    /// PIN or, URL-decoded, a line break that forges log lines.
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

    /// The path's segments between slashes, empty ones left out. Scanned as UTF-8 (a slash is one byte, so every cut
    /// falls on a character boundary): splitting by `Character` cost a GET queue about a tenth of its time.
    static func split(_ path: String) -> [Substring] {
        let utf8 = path.utf8
        var segments: [Substring] = []
        var start = utf8.startIndex
        var index = start
        while index != utf8.endIndex {
            if utf8[index] == UInt8(ascii: "/") {
                if start != index { segments.append(path[start..<index]) }
                start = utf8.index(after: index)
            }
            index = utf8.index(after: index)
        }
        if start != utf8.endIndex { segments.append(path[start..<utf8.endIndex]) }
        return segments
    }
}
