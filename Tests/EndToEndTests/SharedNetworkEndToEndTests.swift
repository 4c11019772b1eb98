import Foundation
import PartyTestSupport
import Testing

/// A network is many people: on one IPv6 Wi-Fi every phone shares the /64, so guest limits count exact addresses and
/// the /64 only as a network. (Host PIN checks keep the /64 as one client: a guesser rotates through its addresses.)
@Suite("A shared IPv6 network is many guests")
struct SharedNetworkEndToEndTests {
    /// Opens an event stream as the phone `address` behind the trusted proxy (this test); the connection stays open.
    static func stream(_ server: ServerProcess, partyId: String, from address: String) throws -> (Connection, Int) {
        let connection = try Connection(port: server.port)
        try connection.write(Array("GET /api/spotify/events?partyId=\(partyId)&source=web HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Forwarded-For: \(address)\r\n\r\n".utf8))
        return (connection, try connection.readHead().0)
    }

    @Test func phonesOnOneIPv6WifiEachHaveTheirOwnStreamsAndGuestPinTypos() throws {
        let server = try ServerProcess(arguments: ["--trusted-proxy", "127.0.0.1"])
        defer { server.stop() }
        let party = try TestParty(server)
        var open: [Connection] = []
        for phone in 1...12 {
            let (connection, status) = try Self.stream(server, partyId: party.id, from: "2001:db8:7:7::\(phone)")
            #expect(status == 200, "phone \(phone) of the Wi-Fi gets its stream")
            open.append(connection)
        }
        var same: [Int] = []
        for _ in 0..<9 {
            let (connection, status) = try Self.stream(server, partyId: party.id, from: "2001:db8:7:7::99")
            same.append(status)
            open.append(connection)
        }
        #expect(same == Array(repeating: 200, count: 8) + [429], "one phone holds 8: \(same)")

        func join(_ pin: String, from address: String) throws -> Int {
            try party.client.send("GET", "/api/party/join/\(pin)", headers: ["X-Forwarded-For": address]).status
        }
        let wrong = party.pin == "00000" ? "00001" : "00000"
        let typos = try (0..<31).map { _ in try join(wrong, from: "2001:db8:7:7::50") }
        #expect(typos.prefix(30).allSatisfy { $0 == 404 } && typos.last == 429, "one phone's 31st wrong PIN waits: \(typos)")
        #expect(try join(party.pin, from: "2001:db8:7:7::51") == 200, "a neighbour on the same Wi-Fi joins at once")
        withExtendedLifetime(open) {}
    }
}
