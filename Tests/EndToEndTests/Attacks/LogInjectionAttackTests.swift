import Foundation
import PartyTestSupport
import Testing

/// The log cannot be forged or leak secrets: a `%0a` in a path must not start a line, and paths can carry PINs.
@Suite("Attack: the log cannot be forged")
struct LogInjectionAttackTests {
    @Test func unmatchedPathsAreLoggedAsAFixedTokenAndNoRequestAddsALine() throws {
        let server = try ServerProcess()
        let party = try TestParty(server)
        #expect(try server.client.get("/api/x%0Ainfo%20forged%20line%0D%0A").status == 404)
        #expect(try server.client.get("/nothing/\(party.hostPin)").status == 404)
        #expect(try server.client.send("PATCH", "/api/party/\(party.id)%0Aerror%20fake").status >= 400)
        #expect(try server.client.get("/api/party/join/\(party.pin)").status == 200)
        server.stop()
        let log = server.errorOutput()
        let lines = log.split(separator: "\n")
        #expect(!lines.contains { $0.hasPrefix("info forged") || $0.hasPrefix("error fake") }, "\(log)")
        #expect(!log.contains(party.hostPin) && !log.contains(party.pin) && !log.contains(party.id), "no PIN or id in the log")
        #expect(lines.filter { $0.contains("(no route) 404") }.count >= 2)
        #expect(!lines.contains { $0.contains("forged") && !$0.hasPrefix("access ") }, "the payload stays inside its entry")
    }

    @Test func anOddMethodIsNotWrittenToTheLog() throws {
        let server = try ServerProcess()
        let method = "XPURGE" + String(repeating: "Q", count: 3_000)
        #expect(try server.client.send(method, "/api/party/join/12345").status >= 400)
        #expect(try server.client.send("lowercase", "/healthz").status >= 400)
        server.stop()
        let log = server.errorOutput()
        #expect(!log.contains("XPURGE") && !log.contains("lowercase"), "the method as sent never reaches the log")
        #expect(log.contains("(other) "))
    }
}
