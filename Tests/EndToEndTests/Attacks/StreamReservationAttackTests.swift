import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// A flood of guest streams from many addresses leaves the TV and the host their streams.
@Suite("Attack: stream slots under a flood")
struct StreamReservationAttackTests {
    @Test func guestsFillingAPartyLeaveTheTVAndTheHostTheirStreams() throws {
        let server = try ServerProcess(arguments: ["--max-streams-per-party", "40"])
        defer { server.stop() }
        let party = try TestParty(server)
        let token = try party.registerMonitor()
        var streams: [SSEClient] = []
        defer { streams.forEach { $0.close() } }
        var refused = 0
        for index in 0..<40 {
            let stream = try SSEClient(port: server.port, path: "\(party.base)/events", source: "127.0.\(90 + index / 8).\(index % 8 + 1)")
            if stream.status == 200 { streams.append(stream) } else { refused += 1 }
        }
        #expect(streams.count == 24 && refused == 16, "guests get the party's unreserved 24 of 40")
        let tv = try party.events(monitorToken: token, source: "127.0.0.1")
        let host = try SSEClient(port: server.port, path: "\(party.base)/events?hostPin=\(party.hostPin)", source: "127.0.0.2")
        streams += [tv, host]
        #expect(tv.status == 200 && host.status == 200)
        #expect(eventually(timeout: 15) { (try? party.current()["deviceActive"] as? Bool) == true }, "the TV is connected")
        #expect(try party.host("POST", "/track/start").status != 409, "so start is not refused for want of a device")
        // A new guest in another network still joins and likes at once.
        let guest = server.client.from("127.0.120.1")
        #expect(try guest.get("/api/party/join/\(party.pin)").status == 200)
        #expect(try guest.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:3", "deviceId": "new"]).status == 200)
    }

    @Test func installationStreamsCannotTakeThePartiesStreams() throws {
        let server = try ServerProcess(arguments: ["--max-streams-per-address", "0"])
        defer { server.stop() }
        let party = try TestParty(server)
        var streams: [SSEClient] = []
        defer { streams.forEach { $0.close() } }
        var opened = 0
        for index in 0..<300 {
            let stream = try SSEClient(port: server.port, path: "/api/spotify/events?source=ios&installationId=inst-\(index)",
                                       source: "127.1.\(index / 200).\(index % 200 + 1)")
            streams.append(stream)
            if stream.status == 200 { opened += 1 }
        }
        #expect(opened == 256)
        let partyStream = try party.events(source: "127.0.130.1")
        streams.append(partyStream)
        #expect(partyStream.status == 200)
    }
}
