import Testing
@testable import HTTPServer

/// Routing by method and pattern: the first route added that matches wins, `{name}` takes one segment,
/// a trailing `{rest*}` the remainder; a path no route has is 404, a path with routes for other methods 405.
@Suite("Router")
struct RouterTests {
    static let router: Router = {
        var router = Router()
        for (method, pattern) in [("GET", "/api/party/{id}/track/queue"), ("GET", "/api/party/{id}/track/{trackId}"),
                                  ("POST", "/api/party/{id}/track/vote"), ("GET", "/assets/{rest*}"),
                                  ("GET", "/api/party/{id}"), ("DELETE", "/api/party/{id}"), ("GET", "/{rest*}")] {
            router.add(method, pattern) { request throws(HTTPError) in
                Response(status: 200, body: .bytes(Array((pattern + " " + request.parameters.sorted { $0.key < $1.key }
                    .map { "\($0.key)=\($0.value)" }.joined(separator: ",")).utf8)))
            }
        }
        return router
    }()

    static func answer(_ method: String, _ path: String) -> String {
        let (_, response) = router.handle(Request(method: method, path: path, clientAddress: "10.0.0.1"))
        guard case .bytes(let bytes) = response.body else { return "?" }
        return response.status == 200 ? String(decoding: bytes, as: UTF8.self) : String(response.status)
    }

    @Test func theFirstRouteAddedThatMatchesWins() {
        #expect(Self.answer("GET", "/api/party/p1/track/queue") == "/api/party/{id}/track/queue id=p1")
        #expect(Self.answer("GET", "/api/party/p1/track/t9") == "/api/party/{id}/track/{trackId} id=p1,trackId=t9")
        #expect(Self.answer("HEAD", "/api/party/p1") == "/api/party/{id} id=p1")
        #expect(Self.answer("DELETE", "/api/party/p1") == "/api/party/{id} id=p1")
    }

    @Test func aRestSegmentTakesTheRemainderAtAnyLength() {
        #expect(Self.answer("GET", "/assets/v-1/js/app.js") == "/assets/{rest*} rest=v-1/js/app.js")
        #expect(Self.answer("GET", "/assets") == "/assets/{rest*} rest=")
        #expect(Self.answer("GET", "/a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r") == "/{rest*} rest=a/b/c/d/e/f/g/h/i/j/k/l/m/n/o/p/q/r")
        #expect(Self.answer("GET", "/") == "/{rest*} rest=")
        #expect(Self.answer("GET", "/api/party/p1/track/queue/extra") == "/{rest*} rest=api/party/p1/track/queue/extra",
                "a longer path than a route's falls through to the catch-all added after it")
    }

    @Test func otherMethodsAre405AndUnknownPaths404() {
        #expect(Self.answer("POST", "/api/party/p1/track/queue") == "405")
        #expect(Self.answer("PUT", "/api/party/p1") == "405")
        var router = Router()
        router.add("GET", "/healthz") { _ throws(HTTPError) in Response(status: 200) }
        #expect(router.handle(Request(method: "GET", path: "/nope", clientAddress: "10.0.0.1")).response.status == 404)
        #expect(router.handle(Request(method: "GET", path: "/healthz/x", clientAddress: "10.0.0.1")).response.status == 404)
    }
}
