import Foundation
import PartyTestSupport
import Testing

@Suite("Liveness and the API description")
struct HealthTests {
    @Test func healthzAnswersOk() throws {
        let server = try InProcessServer()
        let reply = try server.client.get("/healthz")
        #expect(reply.status == 200 && reply.json["status"] as? String == "ok", "\(reply)")
    }

    @Test func theOpenAPIDocumentListsTheRoutes() throws {
        let server = try InProcessServer()
        let reply = try server.client.get("/api/openapi.json")
        let document = reply.json
        #expect(reply.status == 200 && document["openapi"] as? String == "3.1.0", "\(reply)")
        let paths = document["paths"] as? [String: Any] ?? [:]
        for path in ["/api/party", "/api/party/{id}/track/queue", "/api/spotify/events", "/api/party/{id}/device"] {
            #expect(paths[path] != nil, "\(path)")
        }
        let delete = (paths["/api/party/{id}"] as? [String: Any])?["delete"] as? [String: Any]
        #expect(delete?["security"] != nil)
        let get = (paths["/api/party/{id}/track/queue"] as? [String: Any])?["get"] as? [String: Any]
        #expect(get != nil && get?["security"] == nil, "the queue is public")
    }
}
