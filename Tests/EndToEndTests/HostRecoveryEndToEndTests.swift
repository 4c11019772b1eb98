import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R24a: a host who lost every phone gets back in with a link from the server's console, while the server runs.
@Suite("R24a a link from the server's console")
struct HostRecoveryEndToEndTests {
    @Test func hostLinkOnTheConsoleOfARunningServerLetsTheHostBackInOnce() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        let console = try runToExit(ServerProcess.binary, ["host-link", party.pin, "--data", server.dataDirectory, "--port", String(server.port)])
        #expect(console.status == 0, "\(console.output)")
        let link = try #require(console.output.split(separator: "\n").last.map(String.init))
        let prefix = "http://127.0.0.1:\(server.port)/host#party=\(party.id)&recovery="
        #expect(link.hasPrefix(prefix), "\(console.output)")
        let token = String(link.dropFirst(prefix.count))

        let phone = party.client.from("127.0.0.9")
        let redeemed = try phone.send("POST", "\(party.base)/host-recovery", json: ["token": token])
        #expect(redeemed.status == 200, "\(redeemed.status) \(redeemed.text)")
        let newPin = try #require(redeemed.json["hostPin"] as? String)
        #expect(newPin != party.hostPin)
        #expect(try phone.send("GET", "\(party.base)/blacklist", auth: newPin).status == 200)
        #expect(try phone.send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 403)
        #expect(try phone.send("POST", "\(party.base)/host-recovery", json: ["token": token]).status == 403, "once")

        let unknown = try runToExit(ServerProcess.binary, ["host-link", "no-such-party", "--data", server.dataDirectory])
        #expect(unknown.status == 2 && unknown.output == "musicvoting: No active party has the guest PIN or id no-such-party.\n", "\(unknown.output)")
        let empty = try runToExit(ServerProcess.binary, ["host-link", party.pin, "--data", "/nonexistent/folder"])
        #expect(empty.status == 2 && empty.output.contains("No MusicVoting database in /nonexistent/folder"), "\(empty.output)")
    }
}
