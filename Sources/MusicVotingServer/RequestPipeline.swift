import Foundation
import HTTPServer
import PartyEngine

/// What every request goes through, with or without a socket: the client address behind a trusted proxy, the
/// Host check against DNS rebinding, its route, and the access log line. The server hands it each request it reads.
struct RequestPipeline: Sendable {
    let router: Router
    let trustedProxies: Set<String>
    let allowedHosts: AllowedHosts

    /// The answer to one request as it came off the connection; a deferred answer logs when its work is done.
    func respond(to received: Request) -> Response {
        let started = DispatchTime.now().uptimeNanoseconds
        guard let request = received.resolvingForwardedFor(trusting: trustedProxies) else {
            Log.access(method: received.method, route: "(unreadable X-Forwarded-For)", status: 400, milliseconds: 0)
            return Response(error: .malformedRequest)
        }
        guard allowedHosts.allows(request.header("host")) else {
            Log.access(method: request.method, route: "(unknown host)", status: 421, milliseconds: 0)
            return Response(error: HTTPError(status: 421, message: "Unbekannter Host-Name: bitte die Adresse aus dem QR-Code verwenden.",
                                             code: "unknown_host"))
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
