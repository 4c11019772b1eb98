import Foundation
import Synchronization
import Testing
@testable import HTTPServer
import PartyTestSupport
import TestSupport
#if canImport(Glibc)
import Glibc
#endif

/// Event streams own their sockets once their head is decided: events are written straight to the client, a client
/// that leaves or stops reading frees its stream, and a stream keeps counting against the connection limits. Over TLS
/// they stay in libmicrohttpd.
@Suite("Event streams on their own sockets")
struct EventStreamSocketTests {
    /// A server whose `/events` answers a new stream (kept in `streams`), and anything else a small text.
    final class StreamServer: @unchecked Sendable {
        final class Record: Sendable {
            let streams = Mutex<[EventStream]>([])
            let finished = Atomic(0)
        }

        let server: Server
        let record = Record()
        var finished: Int { record.finished.load(ordering: .relaxed) }

        init(connectionLimit: Int = 64, capacity: Int = 64 * 1024, tls: (key: String, certificate: String)? = nil) throws {
            let record = self.record
            server = Server { request in
                guard request.path == "/events" else { return .text("ok") }
                let stream = EventStream(capacity: capacity, initial: Array(": hello\n\n".utf8))
                stream.whenFinished { record.finished.wrappingAdd(1, ordering: .relaxed) }
                record.streams.withLock { $0.append(stream) }
                return Response(status: 200, headers: [("Content-Type", "text/event-stream"), ("Cache-Control", "no-cache")], body: .stream(stream))
            }
            try server.start(Server.Configuration(host: "127.0.0.1", port: 0, threads: 1, connectionLimit: connectionLimit,
                                                  perAddressConnectionLimit: 0, perPrefixConnectionLimit: connectionLimit, tlsKeyPEM: tls?.key, tlsCertificatePEM: tls?.certificate))
        }

        var opened: [EventStream] { record.streams.withLock { $0 } }

        func stop() {
            for stream in opened { stream.close() }
            server.stop(patience: 1)
        }
    }

    private func openStream(_ port: UInt16) throws -> Connection {
        let connection = try Connection(port: port, timeout: 5)
        try connection.write(Array("GET /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        return connection
    }

    @Test func aStreamsHeadClosesWithTheConnectionAndItsEventsArriveAsSent() throws {
        let served = try StreamServer()
        defer { served.stop() }
        let client = try openStream(served.server.port)
        let (status, headers) = try client.readHead()
        #expect(status == 200)
        #expect(headers["content-type"] == "text/event-stream" && headers["cache-control"] == "no-cache")
        #expect(headers["connection"] == "close" && headers["transfer-encoding"] == nil && headers["content-length"] == nil,
                "the body ends with the connection: \(headers)")
        #expect(try client.readLine() == ": hello")
        #expect(try client.readLine() == "")
        let stream = try #require(served.opened.first)
        for number in 1...3 { #expect(stream.send(Array("data: \(number)\n\n".utf8))) }
        for number in 1...3 {
            #expect(try client.readLine() == "data: \(number)")
            #expect(try client.readLine() == "")
        }
        stream.close()
        #expect(try client.readToEnd().isEmpty, "closed after what was queued")
        #expect(eventually { served.finished == 1 })
    }

    @Test func aClientThatLeavesEndsItsStreamAtOnceAndItsConnectionStopsCounting() throws {
        let served = try StreamServer()
        defer { served.stop() }
        var client: Connection? = try openStream(served.server.port)
        _ = try client?.readHead()
        #expect(eventually { served.server.openConnections == 1 }, "the stream's connection counts")
        // Nothing is written to the stream: its end is seen from the hang-up, not from a failed write.
        client = nil
        #expect(eventually { served.finished == 1 })
        #expect(eventually { served.server.openConnections == 0 && served.server.requestsInProgress == 0 })
        #expect(served.opened.first?.send(Array("data: late\n\n".utf8)) == false)
    }

    @Test func aClientThatSendsAnythingOnItsStreamIsDropped() throws {
        let served = try StreamServer()
        defer { served.stop() }
        let client = try openStream(served.server.port)
        _ = try client.readHead()
        // A second request on the same connection, or any bytes: a stream reads nothing more.
        try client.write(Array("GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(eventually { served.finished == 1 })
        #expect(eventually { served.server.openConnections == 0 })
    }

    @Test func streamsCountAgainstTheConnectionLimitUntilTheyEnd() throws {
        let served = try StreamServer(connectionLimit: 2)
        defer { served.stop() }
        let first = try openStream(served.server.port)
        let second = try openStream(served.server.port)
        _ = try first.readHead()
        _ = try second.readHead()
        #expect(served.server.openConnections == 2)
        let refused = try Connection(port: served.server.port, timeout: 2)
        try refused.write(Array("GET /other HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect((try? refused.readToEnd())?.isEmpty ?? true, "a third connection is closed unanswered")
        served.opened.first?.close()
        _ = try first.readToEnd()
        #expect(eventually { served.server.openConnections == 1 })
        let admitted = HTTPClient(port: served.server.port)
        #expect(try admitted.request("GET", "/other").status == 200, "room again once a stream ended")
    }

    @Test func aClientThatStopsReadingIsDroppedWhenItsBufferIsFull() throws {
        let served = try StreamServer(capacity: 16 * 1024)
        defer { served.stop() }
        let client = try openStream(served.server.port)
        var size = Int32(4096)
        setsockopt(client.socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        let stream = try #require(eventually { !served.opened.isEmpty } ? served.opened.first : nil)
        let frame = Array(("data: " + String(repeating: "x", count: 1000) + "\n\n").utf8)
        var accepted = 0
        while stream.send(frame), accepted < 100_000 { accepted += 1 }
        #expect(accepted < 100_000, "the stream refused more once the kernel's and its own buffers were full")
        #expect(eventually { served.finished == 1 })
        #expect(eventually { served.server.openConnections == 0 })
    }

    @Test func overTLSAStreamStaysInLibmicrohttpdAndItsEventsArrive() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-stream-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let made = try runToExit("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem",
                                                      "-out", folder + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1"])
        #expect(made.status == 0)
        let served = try StreamServer(tls: (try String(contentsOfFile: folder + "/key.pem", encoding: .utf8),
                                            try String(contentsOfFile: folder + "/cert.pem", encoding: .utf8)))
        defer { served.stop() }
        #expect(served.server.streamSockets == nil)
        let sender = Thread {
            guard eventually(timeout: 5, { !served.opened.isEmpty }) else { return }
            served.opened[0].send(Array("data: over tls\n\n".utf8))
            served.opened[0].close()
        }
        sender.start()
        let output = try runToExit("/usr/bin/curl", ["-sN", "--max-time", "10", "--cacert", folder + "/cert.pem",
                                                     "https://127.0.0.1:\(served.server.port)/events"], timeout: 15).output
        #expect(output == ": hello\n\ndata: over tls\n\n", "\(output)")
    }
}
