import Foundation
import PartyTestSupport
import TestSupport
import Testing
@testable import MusicVotingServer

/// R24a: nobody's guessing keeps the TV or a host that proved itself out, on either database, across a restart and a
/// database crash; a host always gets back in (a new PIN from the host page, a link from the server's console).
@Suite("R24a no lock-out: the TV and a proven host always get in, and a host always gets back in")
struct HostAccessRoutesTests {
    enum Backend: String, CaseIterable, CustomStringConvertible {
        case sqlite, postgreSQL
        var description: String { rawValue }
    }

    static func server(_ backend: Backend, database: String? = nil) throws -> InProcessServer {
        let url = try database ?? (backend == .postgreSQL ? PostgreSQLCluster.shared().createDatabase() : nil)
        return try InProcessServer { $0.databaseURL = url }
    }

    /// The host page's token, as the page reads it with the PIN it was created with.
    static func hostToken(_ party: TestParty) throws -> String {
        let reply = try party.client.from(party.creatorAddress).send("GET", party.base, auth: party.hostPin)
        guard reply.status == 200, let token = reply.json["hostToken"] as? String, token.count >= 32 else {
            throw TestFailure(description: "host token: \(reply)")
        }
        return token
    }

    static func wrongPin(_ right: String, _ index: Int) -> String {
        let pin = String(format: "%05d", (Int(right)! + 1 + index) % 100_000)
        return pin == right ? String(format: "%05d", (Int(right)! + 50_000) % 100_000) : pin
    }

    static var progress: [String: Any] { ["position": 1000, "duration": 30000, "paused": false] }

    @Test(arguments: Backend.allCases)
    func theTVAndTheHostPageAreNeverRefusedWhileTheirOwnNetworkGuessesThePin(_ backend: Backend) throws {
        let server = try Self.server(backend)
        let party = try TestParty(server)
        let token = try Self.hostToken(party)
        // Everyone on one IPv6 /64: the host's phone, the TV and a guest who guesses.
        let hostPhone = server.client.from("2001:db8:5:6::10"), tv = server.client.from("2001:db8:5:6::20")
        let guesser = server.client.from("2001:db8:5:6::99")
        let paired = try tv.send("PUT", "\(party.base)/device", json: ["deviceId": "tv", "kind": "monitor"], auth: token)
        let monitorToken = try #require(paired.json["monitorToken"] as? String, "\(paired)")
        let guesses = try (0..<40).map { try guesser.send("GET", "\(party.base)/blacklist", auth: Self.wrongPin(party.hostPin, $0)) }
        #expect(guesses.prefix(10).allSatisfy { $0.status == 403 } && guesses.suffix(30).allSatisfy { $0.status == 429 },
                "\(guesses.map(\.status))")
        // Many networks at once put the party under attack, too.
        for index in 0..<40 {
            _ = try server.client.from("198.51.\(index).7").send("GET", "\(party.base)/blacklist", auth: Self.wrongPin(party.hostPin, index))
        }
        #expect(try server.client.from("203.0.113.5").send("GET", "\(party.base)/blacklist", auth: party.hostPin).code == "pin_guessing",
                "a device that never proved the PIN waits")
        for minute in 0..<3 {
            _ = try guesser.send("GET", "\(party.base)/blacklist", auth: Self.wrongPin(party.hostPin, 100 + minute))
            let page = try hostPhone.send("GET", "\(party.base)/blacklist", auth: token)
            #expect(page.status == 200, "the host page with its token: \(page)")
            let pause = try hostPhone.send("PUT", "\(party.base)/settings", json: ["fairQueue": minute % 2 == 0], auth: token)
            #expect(pause.status == 200, "\(pause)")
            let report = try tv.send("POST", "\(party.base)/track/progress", json: Self.progress, auth: monitorToken)
            #expect(report.status == 204, "the TV's report with its token: \(report)")
            server.clock.advance(by: 20)
        }
    }

    @Test(arguments: Backend.allCases)
    func aSpentBudgetLocksOutNoProvenHostAndNoTVAcrossARestartOrADatabaseCrash(_ backend: Backend) throws {
        // A PostgreSQL server of its own: the test crashes it.
        let cluster = backend == .postgreSQL ? try PostgreSQLCluster() : nil
        defer { cluster?.stop() }
        let first = try Self.server(backend, database: try cluster?.createDatabase())
        let party = try TestParty(first)
        let token = try Self.hostToken(party)
        let tv = first.client.from("10.20.30.40")
        let paired = try tv.send("PUT", "\(party.base)/device", json: ["deviceId": "tv", "kind": "monitor"], auth: token)
        let monitorToken = try #require(paired.json["monitorToken"] as? String, "\(paired)")
        // The original app knows only the PIN; it proved it from this address.
        #expect(try first.client.from("192.168.50.5").send("GET", party.base, auth: party.hostPin).json["hostPin"] as? String == party.hostPin)
        var evaluated = 0
        // A slow sweep, one guess every 2.5 s from a network of its own each, until the party's lifetime budget is spent.
        for index in 0..<1_050 {
            first.clock.advance(by: 2.5)
            let reply = try first.client.from("10.\(index / 200).\(index % 200).9").send("GET", "\(party.base)/blacklist",
                                                                                         auth: Self.wrongPin(party.hostPin, index))
            if reply.status == 403 { evaluated += 1 }
        }
        #expect(evaluated == 999)
        first.application.stop()
        if let cluster {
            try cluster.stopServer()
            try cluster.startServer()
        }
        let server = try InProcessServer(restarting: first)
        defer { server.application.stop() }
        let stranger = try server.client.from("172.16.9.9").send("GET", "\(party.base)/blacklist", auth: party.hostPin)
        #expect(stranger.code == "pin_checks_exhausted", "a device that never proved the PIN: \(stranger)")
        #expect(try server.client.from("192.168.50.5").send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 200,
                "the original app's proven address, after the restart")
        #expect(try server.client.from("172.16.9.9").send("GET", "\(party.base)/blacklist", auth: token).status == 200,
                "the host page's token, from anywhere")
        let restartedTV = server.client.from("10.20.30.40")
        #expect(try restartedTV.send("POST", "\(party.base)/track/progress", json: Self.progress, auth: monitorToken).status == 204)

        // The host replaces the PIN from its page: a new PIN and token, a new budget; the TV stays paired.
        let rotated = try server.client.from("172.16.9.9").send("POST", "\(party.base)/host-pin", auth: token)
        let newPin = try #require(rotated.json["hostPin"] as? String, "\(rotated)")
        let newToken = try #require(rotated.json["hostToken"] as? String)
        #expect(newPin != party.hostPin && newToken != token && newPin != party.pin)
        #expect(try server.client.from("172.31.0.1").send("GET", "\(party.base)/blacklist", auth: newPin).status == 200,
                "the new PIN from a device that never proved anything")
        #expect(try server.client.from("172.31.0.1").send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 403)
        #expect(try server.client.from("172.31.0.1").send("GET", "\(party.base)/blacklist", auth: token).status == 403)
        #expect(try server.client.from("192.168.50.5").send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 403,
                "the old PIN is gone for the proven address too")
        #expect(try restartedTV.send("POST", "\(party.base)/track/progress", json: Self.progress, auth: monitorToken).status == 204)
        let found = try server.client.from("172.31.0.2").get("/api/party/host-join/\(newPin)")
        #expect(found.json["id"] as? String == party.id && found.json["hostToken"] as? String == newToken, "\(found)")
    }

    @Test(arguments: Backend.allCases)
    func aLinkFromTheServersConsoleGivesTheHostANewPinOnce(_ backend: Backend) throws {
        let server = try Self.server(backend)
        defer { server.application.stop() }
        let party = try TestParty(server)
        let configuration = server.application.configuration
        let options = configuration.databaseURL.map { ["--database", $0] } ?? ["--data", configuration.dataDirectory]
        let link = try HostRecoveryLink.make(arguments: [party.pin] + options + ["--public-url", "http://party.example:8080"],
                                             environment: [:], now: server.clock.now())
        let prefix = "http://party.example:8080/host#party=\(party.id)&recovery="
        #expect(link.hasPrefix(prefix), "\(link)")
        let recovery = String(link.dropFirst(prefix.count))
        let phone = server.client.from("203.0.113.77")
        #expect(try phone.send("POST", "\(party.base)/host-recovery", json: ["token": String(repeating: "0", count: 32)]).isError(403, "Falsche Host-PIN."))
        let redeemed = try phone.send("POST", "\(party.base)/host-recovery", json: ["token": recovery])
        let newPin = try #require(redeemed.json["hostPin"] as? String, "\(redeemed)")
        let newToken = try #require(redeemed.json["hostToken"] as? String)
        #expect(newPin != party.hostPin && redeemed.json["id"] as? String == party.id)
        #expect(try phone.send("GET", "\(party.base)/blacklist", auth: newToken).status == 200)
        #expect(try phone.send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 403, "the old PIN is replaced")
        #expect(try phone.send("POST", "\(party.base)/host-recovery", json: ["token": recovery]).status == 403, "a link works once")

        let byId = try HostRecoveryLink.make(arguments: [party.id] + options, environment: [:], now: server.clock.now())
        server.clock.advance(by: HostRecoveryLink.lifetime + 1)
        let late = String(byId.split(separator: "=").last ?? "")
        #expect(try phone.send("POST", "\(party.base)/host-recovery", json: ["token": late]).status == 403, "an expired link")
        #expect(throws: HostRecoveryLink.Failure.self) {
            try HostRecoveryLink.make(arguments: ["no-such-party"] + options, environment: [:])
        }
    }
}
