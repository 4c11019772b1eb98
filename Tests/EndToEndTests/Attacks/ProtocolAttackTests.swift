import Foundation
import PartyTestSupport
import Testing

/// libmicrohttpd's own error answers, DNS rebinding, and world-readable secrets.
@Suite("Attack: protocol edges and the data folder")
struct ProtocolAttackTests {
    /// Sends raw bytes, reads one response.
    static func raw(_ server: ServerProcess, _ bytes: [UInt8]) throws -> HTTPResponse {
        let connection = try Connection(port: server.port)
        try connection.write(bytes)
        return try connection.readResponse(method: "GET")
    }

    @Test func errorsTheHTTPParserAnswersItselfHaveTheJSONErrorShape() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let cases: [(String, [UInt8], Int)] = [
            ("HTTP/2.0 request line", Array("GET /healthz HTTP/2.0\r\nHost: 127.0.0.1\r\n\r\n".utf8), 505),
            ("70 KB URL", Array(("GET /" + String(repeating: "a", count: 70_000) + " HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n").utf8), 414),
            ("70 KB header", Array(("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Big: " + String(repeating: "b", count: 70_000) + "\r\n\r\n").utf8), 431),
            ("broken chunk", Array("POST /api/party HTTP/1.1\r\nHost: 127.0.0.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n".utf8), 400),
        ]
        for (name, bytes, status) in cases {
            let response = try Self.raw(server, bytes)
            #expect(response.status == status, "\(name) → \(response.status)")
            #expect(response.header("content-type")?.hasPrefix("application/json") == true && response.error != nil,
                    "\(name): \(response.text.prefix(80))")
        }
        #expect(try server.client.get("/healthz").status == 200)
    }

    @Test func theDataFolderAndDatabaseAreReadableByTheServerOnly() throws {
        let server = try ServerProcess()
        _ = try TestParty(server)
        func mode(_ path: String) -> Int {
            ((try? FileManager.default.attributesOfItem(atPath: path)[.posixPermissions]) as? Int ?? -1) & 0o777
        }
        #expect(mode(server.dataDirectory) == 0o700)
        #expect(mode(server.dataDirectory + "/musicvoting.sqlite") == 0o600)
        #expect(mode(server.dataDirectory + "/musicvoting.sqlite-wal") == 0o600)
        server.stop()
    }
}
