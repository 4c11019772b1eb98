import Foundation
import PartyTestSupport
import Testing

/// An attacker with many addresses of one network (IPv4 /24, IPv6 /64) cannot take every connection.
@Suite("Attack: many addresses of one network")
struct NetworkPrefixAttackTests {
    /// On a dual-stack socket IPv4 clients arrive as ::ffff:a.b.c.d; they must count as their /24, not as one
    /// IPv6 /64 that every IPv4 client shares.
    @Test func oneNetworkHoldsAtMostItsShareAndGuestsOfAnotherStillJoin() throws {
        ConnectionFloodAttackTests.allowManySockets()
        let server = try ServerProcess(arguments: ["--host", "::", "--max-connections-per-prefix", "100"])
        defer { server.stop() }
        let party = try TestParty(server)
        var held: [Connection] = []
        for host in 1...150 { held.append(try ConnectionFloodAttackTests.halfOpen(server, from: "127.0.20.\(host)")) }
        // First, while the held heads are surely within their deadline (10 s): a half-open connection that was let
        // in is only closed by that deadline, so a slow count below would free the network's share again.
        let sameNetwork = try Connection(port: server.port, source: "127.0.20.200")
        try sameNetwork.write(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect((try? sameNetwork.readLine()) == nil, "another address of the full /24 is refused too")
        let refused = held.suffix(50).filter { connection in (try? connection.readLine()) == nil }.count
        #expect(refused >= 45, "connections past the network's 100 are closed (\(refused) of the last 50)")
        #expect(try ConnectionFloodAttackTests.guestCanJoinAndAdd(party, from: "127.0.21.5"), "a guest of another /24 joins and adds")
        #expect(try HTTPClient(port: server.port, source: "::1").get("/healthz").status == 200, "and one over IPv6")
        held.removeAll()
    }
}
