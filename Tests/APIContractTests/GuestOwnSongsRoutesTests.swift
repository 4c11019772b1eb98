import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R18b: a guest reads its own add budget with the queue and takes back its own waiting songs, on either database.
@Suite("R18b a guest's budget and own songs")
struct GuestOwnSongsRoutesTests {
    typealias Backend = HostAccessRoutesTests.Backend

    func budget(_ party: TestParty, device: String) throws -> (addsLeft: Int, nextAddInMs: Int) {
        let reply = try party.client.get("\(party.base)/track/queue?deviceId=\(device)")
        let budget = try #require(reply.json["budget"] as? [String: Any], "\(reply)")
        return (try #require(budget["addsLeft"] as? Int), try #require(budget["nextAddInMs"] as? Int))
    }

    @Test(arguments: Backend.allCases)
    func theQueueTellsAGuestItsBudgetWithoutSpendingIt(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        #expect(try budget(party, device: "guest-1") == (10, 0), "a guest who added nothing has the whole minute's budget")
        #expect(try party.client.get("\(party.base)/track/queue").json["budget"] == nil, "no device, no budget")
        for number in 1...3 { #expect(try party.add(number).status == 200) }
        server.clock.advance(by: 20)
        for _ in 0..<5 { #expect(try budget(party, device: "guest-1").addsLeft == 7, "reading the budget spends none of it") }
        let next = try budget(party, device: "guest-1").nextAddInMs
        // One instance counts exactly; a shared database counts in sixths of a minute, never looser (R31).
        #expect(backend == .sqlite ? next == 40_000 : (40_000...50_000).contains(next), "\(next)")
        server.clock.advance(by: 1)
        #expect(try budget(party, device: "guest-1").nextAddInMs < next, "the wait counts down as the clock runs")
        for number in 4...10 { #expect(try party.add(number).status == 200) }
        #expect(try budget(party, device: "guest-1").addsLeft == 0)
        #expect(try party.add(11).status == 429, "the budget says what R11 enforces")
        #expect(try budget(party, device: "guest-2") == (10, 0), "each guest has its own budget")
        server.clock.advance(by: 50)
        #expect(try budget(party, device: "guest-1").addsLeft == 3, "the first three adds left the window")
        #expect(try party.add(11).status == 200)
        #expect(try budget(party, device: "guest-1").addsLeft == 2)
    }

    @Test(arguments: Backend.allCases)
    func aGuestRemovesOnlyItsOwnWaitingSong(_ backend: Backend) throws {
        let party = try TestParty(HostAccessRoutesTests.server(backend))
        _ = try party.registerMonitor()
        try party.add(1)
        try party.add(2)
        try party.add(3, device: "guest-2")
        #expect(try party.currentUri() == "demo:track:1")
        // Playing refills the queue (R15); only the guests' songs count here.
        func guestSongs() throws -> [String] {
            try party.queue().filter { $0["autofilled"] as? Bool == false }.compactMap { $0["uri"] as? String }
        }
        func remove(_ number: Int, device: String?) throws -> HTTPResponse {
            var body: [String: Any] = ["uri": "demo:track:\(number)"]
            if let device { body["deviceId"] = device }
            return try party.client.send("DELETE", "\(party.base)/track/remove", json: body)
        }
        let others = try remove(3, device: "guest-1")
        #expect(others.isError(403, "Nicht erlaubt.") && others.code == "not_own_entry", "another guest's song: \(others)")
        let playing = try remove(1, device: "guest-1")
        #expect(playing.isError(403, "Nicht erlaubt."), "the playing song, even one's own: \(playing)")
        let own = try remove(2, device: "guest-1")
        #expect(own.status == 200 && own.json["status"] as? String == "removed", "\(own)")
        #expect(try guestSongs() == ["demo:track:1", "demo:track:3"])
        #expect(try remove(2, device: "guest-1").isError(404, "Song nicht in der Warteschlange."))
        let noUri = try party.client.send("DELETE", "\(party.base)/track/remove", json: ["deviceId": "guest-1"])
        #expect(noUri.isError(400, "Missing uri"), "\(noUri)")
        #expect(try remove(3, device: nil).isError(401, "Host-PIN fehlt."), "without a device id it stays the host's call")
        #expect(try party.add(2).status == 200, "the page's undo adds the song again")
        #expect(try party.host("DELETE", "/track/remove", json: ["uri": "demo:track:3"]).status == 200, "the host removes any song")
        #expect(try guestSongs() == ["demo:track:1", "demo:track:2"])
    }

    @Test func removalsAreThrottledLikeLikes() throws {
        let party = try TestParty.given()
        try party.add(1, device: "other")
        let refusals = try (0..<31).map { _ in
            try party.client.send("DELETE", "\(party.base)/track/remove", json: ["uri": "demo:track:1", "deviceId": "prober"])
        }
        #expect(refusals.prefix(30).allSatisfy { $0.status == 403 } && refusals.last?.status == 429, "\(refusals.map(\.status))")
    }
}
