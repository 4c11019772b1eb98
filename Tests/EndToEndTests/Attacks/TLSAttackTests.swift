import Foundation
import PartyTestSupport
import Testing

/// HTTPS speaks TLS 1.2+ with forward-secret key exchange only, and tells browsers to stay on it.
@Suite("Attack: TLS downgrade")
struct TLSAttackTests {
    /// `openssl` with the arguments; its exit status and standard output.
    @discardableResult
    static func run(_ tool: String, _ arguments: [String], input: String = "") throws -> (status: Int32, output: String) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        let stdin = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        process.standardInput = stdin
        try process.run()
        // A tool that refuses its options exits before it reads its input: the write then fails with EPIPE instead of
        // ending the test process by SIGPIPE, and the failure is the exit status it returns.
        signal(SIGPIPE, SIG_IGN)
        try? stdin.fileHandleForWriting.write(contentsOf: Data(input.utf8))
        try? stdin.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return (process.terminationStatus, String(decoding: data, as: UTF8.self))
    }

    static func handshake(_ port: UInt16, _ options: [String]) throws -> Bool {
        let result = try run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(port)", "-servername", "localhost"] + options,
                             input: "Q\n")
        return result.status == 0 && result.output.contains("BEGIN CERTIFICATE")
    }

    @Test func oldVersionsAndStaticRSAAreRefusedAndHTTPSResponsesCarryHSTS() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try Self.run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem",
                                          "-out", folder + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1"])
        let server = try ServerProcess(arguments: ["--tls-cert", folder + "/cert.pem", "--tls-key", folder + "/key.pem"])
        defer { server.stop() }
        // SECLEVEL=0 lets this openssl offer what it refuses by default: any refusal is the server's.
        #expect(try Self.handshake(server.port, ["-tls1_2", "-cipher", "ECDHE-RSA-AES128-GCM-SHA256"]), "TLS 1.2 with ECDHE")
        #expect(try Self.handshake(server.port, ["-tls1_3"]), "TLS 1.3")
        #expect(try !Self.handshake(server.port, ["-tls1_1", "-cipher", "DEFAULT@SECLEVEL=0"]), "TLS 1.1 is refused")
        #expect(try !Self.handshake(server.port, ["-tls1", "-cipher", "DEFAULT@SECLEVEL=0"]), "TLS 1.0 is refused")
        #expect(try !Self.handshake(server.port, ["-tls1_2", "-cipher", "AES128-SHA256:AES128-GCM-SHA256@SECLEVEL=0"]),
                "static RSA key exchange (no forward secrecy) is refused")
        #expect(try !Self.handshake(server.port, ["-tls1_2", "-cipher", "DHE-RSA-AES128-GCM-SHA256@SECLEVEL=0"]),
                "finite-field DHE is refused")

        let url = "https://127.0.0.1:\(server.port)"
        let head = try Self.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--cacert", folder + "/cert.pem", url + "/healthz"]).output
        #expect(head.lowercased().contains("strict-transport-security: max-age=31536000\r\n"), "\(head)")
        // libmicrohttpd's own answers too (here its 431 for a header past the 4 KiB head; small enough that curl has sent
        // all of it before the answer, so the close that follows a 431 never races the upload).
        let refused = try Self.run("/usr/bin/curl", ["-s", "-D", "-", "-o", "/dev/null", "--cacert", folder + "/cert.pem",
                                                     "-H", "X-Big: " + String(repeating: "b", count: 4_500), url + "/healthz"]).output
        #expect(refused.hasPrefix("HTTP/1.1 431") && refused.lowercased().contains("strict-transport-security: max-age=31536000"), "\(refused)")
        // A request line that fills the connection's memory, without a header, is answered on the TLS session too.
        let line = try Self.run("/usr/bin/openssl", ["s_client", "-connect", "127.0.0.1:\(server.port)", "-quiet", "-ign_eof"],
                                input: "GET /api/party/\(String(repeating: "a", count: 4_980)) HTTP/1.0\r\n\r\n").output
        #expect(line.hasPrefix("HTTP/1.1 431") && line.lowercased().contains("strict-transport-security: max-age=31536000")
                && line.hasSuffix(#"{"error":"Anfrage zu groß.","code":"request_too_big"}"#), "\(line.prefix(300))")
    }

    @Test func plainHTTPNeverSendsHSTS() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let response = try server.client.get("/healthz")
        #expect(response.status == 200 && response.header("strict-transport-security") == nil)
    }
}
