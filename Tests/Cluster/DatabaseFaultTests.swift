import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// Faults: PostgreSQL goes away under running instances and comes back. A PostgreSQL server of the test's
/// own (the shared one serves other suites meanwhile).
@Suite("PostgreSQL down and back", .serialized)
struct DatabaseFaultTests {
    @Test func whileTheDatabaseIsDownWritesAnswer503AndTheInstancesHealWhenItReturns() throws {
        let setup = try TwoInstances()
        defer { setup.stop() }
        let (postgres, instances, party, onB) = (setup.postgres, setup.instances, setup.party, setup.onB)

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

    /// A server that stops answering (SIGSTOP on the postmaster and its backends: sockets open, nothing read, as
    /// behind a partition) must not hold requests forever: the statement's answer deadline gives the session up, the
    /// writes answer 503 with the error shape, and after SIGCONT the instances heal without a restart.
    @Test func aDatabaseThatStopsAnsweringGets503sNotHangsAndHealsWhenItAnswersAgain() throws {
        let setup = try TwoInstances()
        defer { setup.stop() }
        let (postgres, instances, party, onB) = (setup.postgres, setup.instances, setup.party, setup.onB)

        try postgres.pause()
        defer { postgres.resume() }  // also when an expectation below throws
        let pausedAt = Date()
        // Several writes at once on both instances: each is answered (the test client gives up after 10 s), none hangs.
        let answers = Mutex<[HTTPResponse?]>([])
        let (ports, base) = (instances.map(\.port), party.base)
        DispatchQueue.concurrentPerform(iterations: 6) { index in
            let response = try? HTTPClient(port: ports[index % 2]).send("POST", base + "/track/vote",
                                                                        json: ["uri": "demo:track:1", "deviceId": "paused-\(index)"])
            answers.withLock { $0.append(response) }
        }
        let answeredAfter = Date().timeIntervalSince(pausedAt)
        for answer in answers.withLock({ $0 }) {
            #expect(answer?.status == 503 && answer?.json["code"] as? String == "database_unavailable" && answer?.error != nil,
                    "\(answer.map(String.init(describing:)) ?? "no answer within the client's 10 s")")
        }
        #expect(try party.client.get("/healthz").status == 200, "the instance itself answers")

        postgres.resume()
        let resumedAt = Date()
        #expect(eventually { (try? party.add(2))?.status == 200 }, "writes work again without a restart")
        let healedAfter = Date().timeIntervalSince(resumedAt)
        #expect(eventually { (try? party.via(instances[1].port).vote(1, device: "guest-1"))?.status == 200 })
        #expect(try party.vote(2, device: "guest-2").status == 200)
        #expect(eventually { onB.received.contains { $0.type == "vote-updated" && $0.payload["uri"] as? String == "demo:track:2" } },
                "B's doorbell listens again: \(onB.received.map(\.type))")
        print("database paused: 6 writes over 2 instances all answered within \(Int(answeredAfter * 1000)) ms; "
              + "resumed: healed after \(Int(healedAfter * 1000)) ms")
    }
}

/// A PostgreSQL server of the test's own, two instances on it, a party with one song created on the first and a stream
/// of it held on the second. `stop()` ends the stream, the instances, then the server.
private final class TwoInstances {
    let postgres: PostgreSQLCluster
    let instances: [ServerProcess]
    let party: TestParty
    let onB: SSEClient

    init() throws {
        postgres = try PostgreSQLCluster()
        do {
            let database = try postgres.createDatabase()
            instances = try (0..<2).map { _ in try ServerProcess(arguments: ["--database", database]) }
            instances.forEach { watchForExit(childPid: $0.process.processIdentifier) }
            party = try TestParty(instances[0])
            try party.add(1)
            onB = try party.via(instances[1].port).events()
        } catch {
            postgres.stop()
            throw error
        }
    }

    func stop() {
        onB.close()
        instances.forEach { $0.kill() }
        postgres.stop()
    }
}
