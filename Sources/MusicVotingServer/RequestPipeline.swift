import Foundation
import HTTPServer
import Metrics
import PartyCore
import PartyEngine

/// What every request goes through, with or without a socket: the client address behind a trusted proxy, the
/// Host check against DNS rebinding, its route, the access log line and the request metrics. The server hands it
/// each request it reads.
struct RequestPipeline: Sendable {
    static let unknownHostRoute = "(unknown host)"
    static let unreadableForwardedForRoute = "(unreadable X-Forwarded-For)"
    static let metricsRoute = "/metrics"

    let router: Router
    let trustedProxies: Set<String>
    let allowedHosts: AllowedHosts
    var metrics: RequestMetrics? = nil
    /// The scrape's text; answered on this listener only to the machine itself (`MetricsAccess`), nil: never.
    var exposition: (@Sendable () -> String)? = nil
    /// Where the pages' styles, scripts and icons are served (`PageRenderer.assetBase`).
    static let publicAssets = "/assets/"

    /// The answer to one request as it came off the connection; a deferred answer logs when its work is done.
    func respond(to received: Request) -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        @Sendable func finished(_ route: String, _ response: Response, method: String) -> Response {
            let now = DispatchTime.now().uptimeNanoseconds
            Log.access(method: method, route: route, status: response.status, milliseconds: Double(now &- started) / 1e6,
                       partyId: Log.writesFields ? Self.partyId(of: received, route: route) : nil)
            metrics?.record(route: route, response: response, nanoseconds: now &- started)
            return response
        }
        guard let request = received.resolvingForwardedFor(trusting: trustedProxies) else {
            return finished(Self.unreadableForwardedForRoute, Response(error: .malformedRequest), method: received.method)
        }
        if !allowedHosts.allows(request.header("host")) {
            // The check keeps other sites from reading answers through a name that resolves here (DNS rebinding);
            // the page's own styles and icons are public, so a browser sent here gets a readable page.
            let isBrowserPage = request.method == "GET" && request.header("accept")?.contains("text/html") == true
            if request.method == "GET", request.path.hasPrefix(Self.publicAssets) {
                // Answered below like under any name.
            } else if isBrowserPage, let page = router.unknownHostPage {
                return finished(Self.unknownHostRoute, page(request, AllowedHosts.hostPart(of: request.header("host") ?? "")), method: request.method)
            } else {
                return finished(Self.unknownHostRoute, Response(error: HTTPError(status: 421, message: "Unbekannter Host-Name: bitte die Adresse aus dem QR-Code verwenden.",
                                                                                 code: "unknown_host")), method: request.method)
            }
        }
        if request.path == Self.metricsRoute {
            // Guests never see it: only the machine itself, never a client a proxy speaks for.
            guard let exposition, MetricsAccess.isLocal(request) else {
                return finished(Self.metricsRoute, Response(error: .notFound), method: request.method)
            }
            return finished(Self.metricsRoute, .text(exposition(), contentType: MetricsRegistry.contentType), method: request.method)
        }
        let (route, response) = router.handle(request)
        guard case .deferred(let deferred) = response.body else { return finished(route, response, method: request.method) }
        return deferred.map { finished(route, $0, method: request.method) }
    }
}

extension RequestPipeline {
    /// The party a request concerns, for the log: the `{id}` of a party route, or an event stream's `partyId`;
    /// only a well-formed id (R3), so nothing else a client writes there reaches the log.
    static func partyId(of request: Request, route: String) -> String? {
        let candidate: String?
        if route.hasPrefix("/api/party/{id}") {
            let segments = request.path.split(separator: "/", maxSplits: 3, omittingEmptySubsequences: true)
            candidate = segments.count > 2 ? String(segments[2]) : nil
        } else {
            candidate = request.query["partyId"]
        }
        return candidate.flatMap { Identifiers.isWellFormedToken($0) ? $0 : nil }
    }
}

/// Who may read `/metrics` on the guests' listener: a client on this machine, talking to it directly.
enum MetricsAccess {
    static func isLocal(_ request: Request) -> Bool {
        guard isLoopback(request.clientAddress) else { return false }
        // A proxy on this machine that is not configured as trusted still names the guest it speaks for.
        for header in ["x-forwarded-for", "x-real-ip"] {
            guard let value = request.header(header) else { continue }
            let addresses = value.split(separator: ",").map { String($0).trimmingCharacters(in: .whitespaces) }
            guard addresses.allSatisfy(isLoopback) else { return false }
        }
        return request.header("forwarded") == nil
    }

    static func isLoopback(_ address: String) -> Bool {
        address == "::1" || address.hasPrefix("127.") || address == "::ffff:127.0.0.1"
    }
}
