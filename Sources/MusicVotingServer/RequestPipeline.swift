import Foundation
import HTTPServer
import PartyEngine

/// What every request goes through, with or without a socket: the client address behind a trusted proxy, the
/// Host check against DNS rebinding, its route, and the access log line. The server hands it each request it reads.
struct RequestPipeline: Sendable {
    let router: Router
    let trustedProxies: Set<String>
    let allowedHosts: AllowedHosts
    /// Where the pages' styles, scripts and icons are served (`PageRenderer.assetBase`).
    static let publicAssets = "/assets/"

    /// The answer to one request as it came off the connection; a deferred answer logs when its work is done.
    func respond(to received: Request) -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        guard let request = received.resolvingForwardedFor(trusting: trustedProxies) else {
            Log.access(method: received.method, route: "(unreadable X-Forwarded-For)", status: 400, milliseconds: 0)
            return Response(error: .malformedRequest)
        }
        if !allowedHosts.allows(request.header("host")) {
            // The check keeps other sites from reading answers through a name that resolves here (DNS rebinding);
            // the page's own styles and icons are public, so a browser sent here gets a readable page.
            let isBrowserPage = request.method == "GET" && request.header("accept")?.contains("text/html") == true
            if request.method == "GET", request.path.hasPrefix(Self.publicAssets) {
                // Answered below like under any name.
            } else if isBrowserPage, let page = router.unknownHostPage {
                Log.access(method: request.method, route: "(unknown host)", status: 421, milliseconds: 0)
                return page(request, AllowedHosts.hostPart(of: request.header("host") ?? ""))
            } else {
                Log.access(method: request.method, route: "(unknown host)", status: 421, milliseconds: 0)
                return Response(error: HTTPError(status: 421, message: "Unbekannter Host-Name: bitte die Adresse aus dem QR-Code verwenden.",
                                                 code: "unknown_host"))
            }
        }
        let (route, response) = router.handle(request)
        @Sendable func logged(_ response: Response) -> Response {
            let milliseconds = Double(DispatchTime.now().uptimeNanoseconds - started) / 1e6
            Log.access(method: request.method, route: route, status: response.status, milliseconds: milliseconds)
            return response
        }
        guard case .deferred(let deferred) = response.body else { return logged(response) }
        return deferred.map(logged)
    }
}
