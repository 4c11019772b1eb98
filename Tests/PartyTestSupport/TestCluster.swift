import Foundation
import TestSupport

/// A database of its own on the test process's PostgreSQL, `count` instances of the real binary on it
/// (127.0.0.1, port 0, `--database`), and optionally Debian's nginx in front. Everything ends with the value (or a
/// crash of the test process: see `watchForExit`).
package final class TestCluster: PartyHost {
    package let database: String
    package private(set) var instances: [ServerProcess] = []
    package private(set) var nginx: NginxProcess?

    /// More arguments for every instance (a Spotify app, say).
    private let arguments: [String]

    package init(instances count: Int = 3, nginx balancing: NginxProcess.Balancing? = nil, arguments: [String] = []) throws {
        // Behind nginx the links the instances give out (join, covers) name nginx, as a deployment's --public-url does.
        let front = try balancing.map { _ in try freeLoopbackPort() }
        self.arguments = arguments + (front.map { ["--public-url", "http://127.0.0.1:\($0)"] } ?? [])
        database = try PostgreSQLCluster.shared().createDatabase()
        // Behind nginx every connection comes from 127.0.0.1: the clients' own addresses come in X-Forwarded-For.
        for _ in 0..<count { try start() }
        if let balancing { nginx = try NginxProcess(upstreams: instances.map(\.port), balancing: balancing, port: front) }
    }

    deinit { stop() }

    /// The front door: nginx, or the first instance when there is none.
    package var port: UInt16 { nginx?.port ?? instances[0].port }

    /// One more instance on the same database.
    @discardableResult
    package func start() throws -> ServerProcess {
        let instance = try ServerProcess(arguments: ["--database", database, "--trusted-proxy", "127.0.0.1"] + arguments)
        watchForExit(childPid: instance.process.processIdentifier)
        instances.append(instance)
        return instance
    }

    /// A rolling replacement's step: SIGTERM to `instance` (its drain), and once it exited a new instance on its port,
    /// so nginx's upstream list stays as it is. The time the old one took to exit, and the new one.
    package func replace(_ instance: ServerProcess) throws -> (drained: TimeInterval, replacement: ServerProcess) {
        let signalled = Date()
        instance.terminate()
        guard eventually(timeout: 15, { !instance.process.isRunning }) else { throw TestFailure(description: "no exit after SIGTERM") }
        let drained = Date().timeIntervalSince(signalled)
        let replacement = try ServerProcess(arguments: ["--database", database, "--trusted-proxy", "127.0.0.1"] + arguments
                                            + ["--port", String(instance.port)])
        watchForExit(childPid: replacement.process.processIdentifier)
        instances[instances.firstIndex { $0 === instance }!] = replacement
        return (drained, replacement)
    }

    package func stop() {
        nginx?.stop()
        for instance in instances { instance.kill() }
    }

    /// A party created on the first instance.
    package func party() throws -> TestParty { try TestParty(instances[0]) }

    /// Runs SQL on the cluster's database with Debian's psql; its output, one row a line.
    package func sql(_ statement: String) throws -> String {
        let result = try runToExit("/usr/bin/psql", ["-X", "-q", "-A", "-t", "-v", "ON_ERROR_STOP=1", database, "-c", statement])
        guard result.status == 0 else { throw TestFailure(description: "psql: \(result.output)") }
        return result.output.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    /// Ends the doorbell's session of `instance` on the server's side (as a database restart or a network cut would):
    /// how many sessions ended.
    @discardableResult
    package func terminateDoorbell(of instance: ServerProcess) throws -> Int {
        let name = "musicvoting-doorbell-\(instance.process.processIdentifier)"
        return try sql("SELECT pg_terminate_backend(pid) FROM pg_stat_activity WHERE application_name = '\(name)'")
            .split(separator: "\n").count
    }

    /// Whether each live instance runs the party upkeep (`/healthz`), nil for one that does not answer.
    package func upkeepOwners() -> [Bool?] {
        instances.map { instance in
            guard instance.process.isRunning else { return nil }
            return (try? instance.client.get("/healthz"))?.json["upkeep"] as? Bool
        }
    }
}

extension TestParty {
    /// The same party, spoken to through another port: another instance, or nginx.
    package func via(_ port: UInt16) -> TestParty {
        TestParty(server: server, client: TestClient(server: LivePort(port)), id: id, pin: pin, hostPin: hostPin, joinUrl: joinUrl,
                  creatorAddress: creatorAddress)
    }

    /// The monitor's progress report (a heartbeat of its presence on the instance that gets it).
    @discardableResult
    package func reportProgress(token: String, positionMs: Int = 1_000) throws -> HTTPResponse {
        try client.send("POST", base + "/track/progress", json: ["position": positionMs, "duration": 180_000, "paused": false], auth: token)
    }

    package func likeCount(_ number: Int) throws -> Int? {
        try queue().first { $0["uri"] as? String == "demo:track:\(number)" }?["likeCount"] as? Int
    }
}
