import Foundation
import TestSupport
import Testing

/// Issue 26, faults: PostgreSQL goes away under running instances and comes back. A PostgreSQL server of the test's
/// own (the shared one serves other suites meanwhile).
@Suite("PostgreSQL down and back", .serialized)
struct DatabaseFaultTests {
    @Test func whileTheDatabaseIsDownWritesAnswer503AndTheInstancesHealWhenItReturns() throws {
        let postgres = try PostgreSQLCluster()
        defer { postgres.stop() }
        let database = try postgres.createDatabase()
        let instances = try (0..<2).map { _ in try ServerProcess(arguments: ["--database", database]) }
        defer { instances.forEach { $0.kill() } }
        instances.forEach { watchForExit(childPid: $0.process.processIdentifier) }
        let party = try TestParty(instances[0])
        try party.add(1)
        let onB = try party.via(instances[1].port).events()
        defer { onB.close() }

        try postgres.stopServer()
        let stoppedAt = Date()
        let refused = try party.add(2)
        let answeredAfter = Date().timeIntervalSince(stoppedAt)
        #expect(refused.status == 503 && refused.json["code"] as? String == "database_unavailable" && refused.error != nil, "\(refused)")
        #expect(refused.header("Retry-After") == "2")
        #expect(try party.via(instances[1].port).vote(1, device: "guest-1").status == 503)
        #expect(try party.client.get("/healthz").status == 200, "the instance itself lives on")

        try postgres.startServer()
        let restartedAt = Date()
        #expect(eventually { (try? party.add(2))?.status == 200 }, "writes work again without a restart")
        let healedAfter = Date().timeIntervalSince(restartedAt)
        #expect(try party.via(instances[1].port).vote(1, device: "guest-1").status == 200)
        // B's doorbell listens again: A's next write reaches B's stream (the stream itself stayed open).
        #expect(try party.vote(2, device: "guest-2").status == 200)
        #expect(eventually { onB.received.contains { $0.type == "vote-updated" && $0.payload["uri"] as? String == "demo:track:2" } },
                "\(onB.received.map(\.type))")
        print("database down: first write answered in \(Int(answeredAfter * 1000)) ms; back: healed after \(Int(healedAfter * 1000)) ms")
    }
}
