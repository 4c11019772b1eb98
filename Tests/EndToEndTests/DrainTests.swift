import Foundation
import HTTPServer
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// SIGTERM drains: streams are told to come back later and end, likes already sent are answered and kept, the
/// process exits 0 within `--drain-seconds`; a second SIGTERM ends it at once.
@Suite("Drain on SIGTERM")
struct DrainTests {
    /// Waits for the process to end; the seconds it took, nil when it still ran after `timeout`.
    static func exitTime(of server: ServerProcess, since start: Date, timeout: TimeInterval) -> TimeInterval? {
        guard eventually(timeout: timeout, { !server.process.isRunning }) else { return nil }
        return Date().timeIntervalSince(start)
    }

    /// A request whose body is still on its way: it holds the drain until the drain's bound.
    static func requestStillArriving(port: UInt16, partyBase: String) throws -> Connection {
        let connection = try Connection(port: port)
        try connection.write(Array("POST \(partyBase)/track/vote HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{\"uri\":".utf8))
        return connection
    }

    @Test func streamsComeBackSpreadOutLikesSentAreKeptAndTheProcessExitsCleanly() throws {
        let server = try ServerProcess(arguments: ["--drain-seconds", "10"] + MetricsEndToEndTests.unrationed)
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(try party.add(1, device: "adder").status == 200)
        let streams = try (0..<4).map { _ in try party.events() }
        defer { streams.forEach { $0.close() } }
        for stream in streams { #expect(eventually { stream.retry == 3000 }, "the preamble's retry") }

        // Likes, each from a device of its own, until the server stops taking connections.
        let acknowledged = Mutex<[String]>([])
        let storm = DispatchGroup()
        let (client, base) = (party.client, party.base)
        for thread in 0..<4 {
            onOwnThread(storm) {
                for number in 0..<10_000 {
                    let device = "drain-\(thread)-\(number)"
                    guard let answer = try? client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:1", "deviceId": device, "liked": true]) else { return }
                    if answer.status == 200 { acknowledged.withLock { $0.append(device) } }
                }
            }
        }
        #expect(eventually { acknowledged.withLock { $0.count } >= 20 })
        let signalled = Date()
        server.terminate()
        let exitedAfter = Self.exitTime(of: server, since: signalled, timeout: 12)
        storm.wait()
        #expect(exitedAfter.map { $0 < 10 } == true, "exit after \(String(describing: exitedAfter)) s")
        #expect(server.exitStatus == 0)
        print("drain: exit \(String(format: "%.2f", exitedAfter ?? -1)) s after SIGTERM with 4 streams and a like storm")

        for stream in streams {
            #expect(stream.waitForEnd(timeout: 1), "a stream still open after the exit")
            #expect((1_000...6_000).contains(stream.retry ?? 0), "retry: \(String(describing: stream.retry))")
        }
        #expect(Set(streams.compactMap(\.retry)).count > 1, "every page told the same time: they would return at once")

        // Every like answered 200 is in the database the next start reads.
        let again = try ServerProcess(dataDirectory: server.dataDirectory)
        defer { again.stop() }
        let liked = acknowledged.withLock { $0 }
        let queue = try TestPartyHandle(party: party, server: again).queue(device: liked.last)
        let song = try #require(queue.first { $0["uri"] as? String == "demo:track:1" })
        #expect((song["likeCount"] as? Int ?? 0) >= liked.count, "\(liked.count) likes acknowledged, \(song["likeCount"] ?? 0) kept")
        #expect(song["hasVoted"] as? Bool == true, "the last like acknowledged before the exit is kept")
    }

    /// Behind a proxy that keeps connections (nginx's upstream keepalive, as `nginx-config` prints it): while the
    /// instance drains, new connections are refused, and a like sent on a connection the proxy kept is still done
    /// and answered, with `Connection: close`, however late within nginx's idle timeout it comes. The drain ends
    /// as soon as the proxy has closed the last kept connection, not at a fixed time.
    @Test func behindAProxyALikeOnAKeptConnectionIsAnsweredAndClosesItDuringTheDrain() throws {
        let server = try ServerProcess(arguments: ["--drain-seconds", "10", "--trusted-proxy", "127.0.0.1"])
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(try party.add(1, device: "adder").status == 200)
        // Two connections as nginx keeps them after an answer: one carries a like mid-drain, one stays idle.
        let kept = try Connection(port: server.port)
        let idle = try Connection(port: server.port)
        for connection in [kept, idle] {
            try connection.write(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n\r\n".utf8))
            let answer = try connection.readResponse(method: "GET")
            #expect(answer.status == 200 && answer.headers["connection"]?.lowercased() != "close", "\(answer.headers)")
        }
        let signalled = Date()
        server.terminate()
        #expect(eventually(timeout: 3) { (try? HTTPClient(port: server.port).get("/healthz")) == nil }, "new connections are refused")
        // Halfway through nginx's idle timeout, when nothing is in progress and nginx may still pick the kept
        // connection for a guest's like.
        Thread.sleep(until: signalled.addingTimeInterval(TimeInterval(Server.proxyIdleTimeout) / 2))
        #expect(server.process.isRunning, "the drain waits for the connections nginx keeps")
        let body = #"{"uri":"demo:track:1","deviceId":"kept-connection","liked":true}"#
        try kept.write(Array(("POST \(party.base)/track/vote HTTP/1.1\r\nHost: 127.0.0.1:\(server.port)\r\n"
                              + "Content-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nX-Forwarded-For: 127.0.0.9\r\n\r\n"
                              + body).utf8))
        let liked = try kept.readResponse(method: "POST")
        #expect(liked.status == 200, "\(liked)")
        #expect(liked.headers["connection"]?.lowercased() == "close", "nginx keeps no connection to a draining instance")
        #expect(try kept.readToEnd().isEmpty, "the connection ends after the answer")

        // nginx closes its idle connection; the drain ends then, before the proxy's timeout would have ended it
        // (a second past it, counted from the drain's start, which is no earlier than the signal).
        shutdown(idle.socket, Int32(SHUT_RDWR))
        let exitedAfter = Self.exitTime(of: server, since: signalled, timeout: 8)
        #expect(exitedAfter.map { $0 < TimeInterval(Server.proxyIdleTimeout + 1) } == true,
                "exit \(String(describing: exitedAfter)) s after the signal, the last kept connection closed at \(Server.proxyIdleTimeout / 2) s")
        #expect(server.exitStatus == 0)

        let again = try ServerProcess(dataDirectory: server.dataDirectory)
        defer { again.stop() }
        let queue = try TestPartyHandle(party: party, server: again).queue(device: "kept-connection")
        let song = try #require(queue.first { $0["uri"] as? String == "demo:track:1" })
        #expect(song["hasVoted"] as? Bool == true, "the like answered during the drain is kept")
    }

    @Test func aDrainEndsAtItsBoundWhateverIsStillArriving() throws {
        let server = try ServerProcess(arguments: ["--drain-seconds", "2"])
        defer { server.stop() }
        let party = try TestParty(server)
        let arriving = try Self.requestStillArriving(port: server.port, partyBase: party.base)
        // Held open to the test's end, and closed once, by the connection itself.
        defer { withExtendedLifetime(arriving) {} }
        #expect(eventually { (try? server.client.get("/readyz").status) == 200 })
        let signalled = Date()
        server.terminate()
        let exitedAfter = Self.exitTime(of: server, since: signalled, timeout: 8)
        // The bound ends the drain, not the request: that one would hold it until the connection's idle timeout
        // (`Server.idleTimeout`, 15 s). Past the bound the server still closes its store, which a loaded machine can
        // stretch to a second or more.
        #expect(exitedAfter.map { $0 >= 1 && $0 < 5 } == true, "exit after \(String(describing: exitedAfter)) s, bound 2 s")
    }

    @Test func aSecondSigtermExitsAtOnce() throws {
        let server = try ServerProcess(arguments: ["--drain-seconds", "60"])
        defer { server.kill() }
        let party = try TestParty(server)
        let arriving = try Self.requestStillArriving(port: server.port, partyBase: party.base)
        // Held open to the test's end, and closed once, by the connection itself.
        defer { withExtendedLifetime(arriving) {} }
        server.terminate()
        // Draining: not ready, and no new connection taken.
        #expect(eventually(timeout: 5) { (try? HTTPClient(port: server.port).get("/healthz")) == nil })
        #expect(server.process.isRunning, "the request still arriving holds the drain")
        let second = Date()
        server.terminate()
        let exitedAfter = Self.exitTime(of: server, since: second, timeout: 5)
        // At once, not after the drain's 60 s: the bound leaves a busy machine room for the signal and the child's end.
        #expect(exitedAfter.map { $0 < 3 } == true, "exit after \(String(describing: exitedAfter)) s")
        #expect(server.exitStatus == 1, "a drain cut short is no clean exit")
    }
}
