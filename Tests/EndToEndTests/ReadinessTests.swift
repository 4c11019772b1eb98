import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// `/readyz` apart from `/healthz`: ready once started, not while the database cannot take a write.
@Suite("Readiness")
struct ReadinessTests {
    @Test func aStartedServerOnSQLiteIsReady() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let ready = try server.client.get("/readyz")
        #expect(ready.status == 200 && ready.json["status"] as? String == "ready")
        #expect(try server.client.get("/healthz").status == 200)
    }

    @Test func notReadyWithinTwoSecondsOfPostgreSQLStoppingAndReadyWithinFiveOfItsReturn() throws {
        // A server of its own: this test stops it.
        let postgres = try PostgreSQLCluster()
        defer { postgres.stop() }
        let server = try ServerProcess(arguments: ["--database", try postgres.createDatabase()])
        defer { server.stop() }
        #expect(eventually { (try? server.client.get("/readyz").status) == 200 })

        try postgres.stopServer()
        let stopped = Date()
        #expect(eventually(timeout: 2) { (try? server.client.get("/readyz").status) == 503 }, "still ready 2 s after the database stopped")
        let notReadyAfter = Date().timeIntervalSince(stopped)
        let answer = try server.client.get("/readyz")
        #expect(answer.status == 503 && answer.json["reason"] as? String == "database")
        #expect(try server.client.get("/healthz").status == 200, "the process still answers: no restart for a database outage")

        try postgres.startServer()
        let started = Date()
        #expect(eventually(timeout: 5) { (try? server.client.get("/readyz").status) == 200 }, "not ready 5 s after the database returned")
        let readyAfter = Date().timeIntervalSince(started)
        print("readyz: 503 \(String(format: "%.2f", notReadyAfter)) s after pg_ctl stop, 200 \(String(format: "%.2f", readyAfter)) s after start")
    }
}
