import Foundation
import Testing
#if canImport(Glibc)
import Glibc
import PartyTestSupport
import TestSupport
#endif

/// Floods of connections from one or many phones must leave a new guest able to join.
@Suite("Attack: connection floods do not lock guests out", .alsoOnRoundRobinCluster)
struct ConnectionFloodAttackTests {
    /// Raises this test process's own descriptor limit: it plays a thousand phones.
    static func allowManySockets() {
        var limit = rlimit()
        getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
        limit.rlim_cur = limit.rlim_max
        setrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit)
    }

    /// A connection that sends the start of a request and never finishes its headers.
    static func halfOpen(_ server: ServerProcess, from source: String) throws -> Connection {
        let connection = try Connection(port: server.port, timeout: 30, source: source)
        try connection.write(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
        return connection
    }

    /// The guest's path through the party: the join page, then adding a song.
    static func guestCanJoinAndAdd(_ party: TestParty, from source: String) throws -> Bool {
        let guest = party.client.from(source)
        let page = try guest.get("/join/\(party.pin)")
        let add = try guest.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:5", "deviceId": "guest-\(source)"])
        return page.status == 200 && page.text.contains("<html") && add.status == 200
    }

    @Test func oneAddressHoldsAtMost64ConnectionsAnd8Streams() throws {
        Self.allowManySockets()
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        let attacker = "127.0.4.1"
        var held: [Connection] = []
        for _ in 0..<300 { held.append(try Self.halfOpen(server, from: attacker)) }
        // Past its 64 the server closes the attacker's connections at once.
        let refused = held.suffix(200).filter { connection in (try? connection.readLine()) == nil }.count
        #expect(refused >= 190, "connections past the per-address limit are closed (\(refused) of the last 200)")
        #expect(try Self.guestCanJoinAndAdd(party, from: "127.0.4.2"), "a new guest still joins and adds a song")
        held.removeAll()

        let streams = try (0..<8).map { _ in try party.events(source: "127.0.4.3") }
        #expect(streams.allSatisfy { $0.status == 200 })
        let ninth = try SSEClient(port: server.port, path: "\(party.base)/events", source: "127.0.4.3")
        #expect(ninth.status == 429, "the ninth stream of one address is refused")
        #expect(try party.events(source: "127.0.4.4").status == 200, "another phone still gets its stream")
        for stream in streams { stream.close() }
    }

    @Test func halfOpenRequestsFromManyAddressesLeaveRoomForGuests() throws {
        Self.allowManySockets()
        // Started as from a fresh shell (soft limit 1,024): the server raises its limit to the hard one.
        let server = try ServerProcess(openFileSoftLimit: 1_024)
        defer { server.stop() }
        let limits = try #require(server.openFileLimits())
        #expect(limits.soft == limits.hard && limits.soft > 1_300, "soft limit raised to the hard limit (\(limits))")
        let party = try TestParty(server)
        var held: [Connection] = []
        for phone in 0..<20 {
            for _ in 0..<60 { held.append(try Self.halfOpen(server, from: "127.0.5.\(phone + 1)")) }
        }
        #expect(held.count == 1_200)
        #expect(try Self.guestCanJoinAndAdd(party, from: "127.0.5.200"), "1,200 half-open requests (1,100 stalled the old server)")
        #expect(try server.client.get("/healthz").status == 200)
    }

    @Test func headersThatStopArrivingAreDroppedWhileStreamsLiveOn() throws {
        let party = try TestParty.given(.live)
        let stream = try party.events()
        defer { stream.close() }
        // Our read gives up after 60 s; the server's 10 s head deadline must close the connection first.
        let stalled = try Connection(port: party.client.port, timeout: 60, source: "127.0.6.1")
        try stalled.write(Array("GET / HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ".utf8))
        #expect(RequestHeadAttackTests.isClosed(stalled), "a half-open request is closed by the server (not our read timing out)")
        let pings = stream.commentLines.count
        #expect(eventually(timeout: 3 * patience) { stream.commentLines.count > pings }, "the event stream outlives the head deadline")
        #expect(!stream.waitForEnd(timeout: 0))
        try party.add(2)
        try stream.waitFor("queue-updated")
    }

    @Test func aPartyHoldsAtMostItsStreamCapAndOtherPartiesAreUnaffected() throws {
        let server = try ServerProcess(arguments: ["--max-streams-per-party", "3"])
        defer { server.stop() }
        let party = try TestParty(server)
        // Of 3, one is kept for the host and the TV: guests get 2.
        var streams = try (1...2).map { try party.events(source: "127.0.14.\($0)") }
        #expect(streams.allSatisfy { $0.status == 200 })
        let third = try SSEClient(port: server.port, path: "\(party.base)/events", source: "127.0.14.3")
        #expect(third.status == 429)
        streams.append(try SSEClient(port: server.port, path: "\(party.base)/events?hostPin=\(party.hostPin)", source: "127.0.14.6"))
        #expect(streams.last?.status == 200, "the host's stream takes the kept slot")
        let fourth = try SSEClient(port: server.port, path: "\(party.base)/events?hostPin=\(party.hostPin)", source: "127.0.14.4")
        #expect(fourth.status == 429, "the party's cap holds for the host too")
        #expect(try TestParty(server).events(source: "127.0.14.5").status == 200, "another party has its own streams")
        for stream in streams { stream.close() }
    }
}
