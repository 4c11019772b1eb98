import Foundation
import PartyTestSupport
import Testing
import TestSupport

/// What keeps the server from starting is one sentence naming the path or port and what to do, and
/// exit code 1; `--host ::` listens on IPv6 and IPv4.
@Suite("Start-up errors and listening")
struct StartupTests {
    /// Runs the binary until it exits (at most 60 s: a loaded machine may take seconds to start it): its exit code and
    /// what it wrote (`runToExit`: standard output and error in one file; a server that refuses to start writes
    /// nothing to standard output).
    static func run(_ arguments: [String]) throws -> (status: Int32, error: String) {
        do {
            let result = try runToExit(ServerProcess.binary, ["--resources", ServerProcess.repositoryRoot] + arguments, timeout: 60)
            return (result.status, result.output)
        } catch is StillRunning {
            throw TestFailure(description: "the server started instead of refusing: \(arguments)")
        }
    }

    static func temporary(_ name: String) -> String {
        FileManager.default.temporaryDirectory.appendingPathComponent("mv-startup-\(name)-\(UUID().uuidString)").path
    }

    /// The last line: libmicrohttpd may log its own line before ours (a TLS failure).
    static func sentence(_ error: String) -> String {
        error.split(separator: "\n").last.map(String.init) ?? ""
    }

    @Test func aDataFolderThatCannotBeCreatedNamesItsPath() throws {
        let file = Self.temporary("file")
        #expect(FileManager.default.createFile(atPath: file, contents: Data("x".utf8)))
        defer { try? FileManager.default.removeItem(atPath: file) }
        let result = try Self.run(["--port", "0", "--data", file + "/data"])
        #expect(result.status == 1)
        #expect(Self.sentence(result.error).hasPrefix("musicvoting: Cannot use the data folder \(file)/data ("))
        #expect(Self.sentence(result.error).hasSuffix("create it and let this user write to it, or choose another with --data."))
        #expect(!result.error.contains("NSCocoaErrorDomain") && result.error.split(separator: "\n").count == 1)
    }

    @Test func aPortInUseNamesThePort() throws {
        let first = try ServerProcess()
        defer { first.stop() }
        let result = try Self.run(["--host", "127.0.0.1", "--port", String(first.port), "--data", Self.temporary("port")])
        #expect(result.status == 1)
        #expect(result.error == "musicvoting: Port \(first.port) is already in use by another program: stop that program or start MusicVoting with --port and a free port.\n")
    }

    @Test func aMissingMusicFolderNamesItsPath() throws {
        let result = try Self.run(["--port", "0", "--data", Self.temporary("music"), "--library", "/nonexistent/music"])
        #expect(result.status == 1)
        #expect(result.error == "musicvoting: Cannot read the music folder /nonexistent/music (No such file or directory): check the path given with --library and that this user may read it.\n")
    }

    @Test func anUnreadableTLSFileNamesItsPathAndABadOneSaysSo() throws {
        let missing = try Self.run(["--port", "0", "--data", Self.temporary("tls"), "--tls-cert", "/nonexistent/cert.pem", "--tls-key", "/nonexistent/key.pem"])
        #expect(missing.status == 1)
        #expect(missing.error == "musicvoting: Cannot read the TLS file /nonexistent/cert.pem (No such file or directory): check the path given with --tls-cert and that this user may read it.\n")
        let garbage = Self.temporary("garbage.pem")
        #expect(FileManager.default.createFile(atPath: garbage, contents: Data("not a certificate\n".utf8)))
        defer { try? FileManager.default.removeItem(atPath: garbage) }
        let invalid = try Self.run(["--port", "0", "--data", Self.temporary("tls2"), "--tls-cert", garbage, "--tls-key", garbage])
        #expect(invalid.status == 1)
        #expect(Self.sentence(invalid.error) == "musicvoting: The TLS certificate or key cannot be used: check that --tls-cert and --tls-key are a matching PEM certificate and private key.")
    }

    @Test func aHostThatIsNoAddressOfThisMachineSaysWhatToUse() throws {
        let name = try Self.run(["--host", "party.local", "--port", "0", "--data", Self.temporary("host")])
        #expect(name.status == 1 && name.error.hasPrefix("musicvoting: --host party.local is not an IP address: use 0.0.0.0"))
        // 192.0.2.0/24 is reserved for documentation: no machine has it.
        let foreign = try Self.run(["--host", "192.0.2.77", "--port", "0", "--data", Self.temporary("host2")])
        #expect(foreign.status == 1 && foreign.error == "musicvoting: This machine has no address 192.0.2.77: use --host 0.0.0.0 (every IPv4 address) or --host :: (IPv6 and IPv4).\n")
    }

    @Test func doubleColonListensOnIPv6AndIPv4AndSeesOneClientAddress() throws {
        let server = try ServerProcess(arguments: ["--host", "::"])
        defer { server.stop() }
        #expect(try server.client.get("/healthz").status == 200)
        #expect(try server.client.from("::1").get("/healthz").status == 200)
        // An IPv4 client on the dual-stack socket is 127.0.0.1, not ::ffff:127.0.0.1: its party-creation budget
        // is the one the IPv4 server would count (R24-style limits key on the address).
        let party = try server.client.send("POST", "/api/party", json: ["provider": "demo"])
        #expect(party.status == 201 || party.status == 200)
        #expect((party.json["joinUrl"] as? String)?.contains("[::]") == false, "the join link names a reachable address")
    }
}
