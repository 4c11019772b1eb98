import Foundation
import PartyTestSupport
import Testing

@Suite("The Host check against DNS rebinding")
struct HostNameTests {
    @Test func aForeignHostNameIsRefused() throws {
        let server = try InProcessServer { $0.allowedHosts = ["party.lan"] }
        let rebound = try server.client.get("/api/party/join/12345", headers: ["Host": "evil.example:8080"])
        #expect(rebound.isError(421, "Unbekannter Host-Name: bitte die Adresse aus dem QR-Code verwenden."), "\(rebound)")
        #expect(try server.client.get("/healthz", headers: ["Host": "localhost:8080"]).status == 200)
        #expect(try server.client.get("/healthz", headers: ["Host": "party.lan"]).status == 200, "--allowed-host")
        #expect(try server.client.get("/healthz", headers: ["Host": "party.test:8080"]).status == 200, "the public URL's host")
        #expect(try server.client.get("/healthz", headers: ["Host": "[::1]:8080"]).status == 200)
        #expect(try server.client.get("/healthz", headers: ["Host": "127.0.0.1:8080"]).status == 200, "an IP literal")
    }
}
