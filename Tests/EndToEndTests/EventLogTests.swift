import Foundation
import PartyStore
import PartyTestSupport
import TestSupport
import Testing

/// The SSE id is the party's sequence number in its event log, which outlives the process (docs/api.md, "Resuming a
/// stream"): a client that comes back with `Last-Event-ID` gets exactly what it missed, or is told to reload.
@Suite("Event log: resume with Last-Event-ID")
struct EventLogTests {
    enum Backend: String, CaseIterable, Sendable { case sqlite, postgreSQL }

    /// Where the server keeps its data: `--data` alone, or a PostgreSQL database of the test process's server.
    static func arguments(_ backend: Backend) throws -> [String] {
        backend == .sqlite ? [] : ["--database", try PostgreSQLCluster.shared().createDatabase()]
    }

    static func stream(_ server: ServerProcess, _ party: TestParty, after lastEventId: Int?) throws -> SSEClient {
        try SSEClient(port: server.port, path: "/api/spotify/events?partyId=\(party.id)&source=web", lastEventId: lastEventId)
    }

    static func add(_ number: Int, on server: ServerProcess, _ party: TestParty) throws {
        let response = try server.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": "g"])
        guard response.status == 200 else { throw TestFailure(description: "add: \(response)") }
    }

    @Test(arguments: Backend.allCases)
    func aClientThatReconnectsGetsExactlyTheEventsItMissedAlsoAcrossARestart(_ backend: Backend) throws {
        let arguments = try Self.arguments(backend)
        let first = try ServerProcess(arguments: arguments)
        let party = try TestParty(first)
        let stream = try party.events()
        try party.add(1)
        let seen = try #require(try stream.waitFor("queue-updated").id)
        stream.close()
        // Missed on the first process, then on the second.
        try party.add(2)
        #expect(try party.vote(2, device: "a").status == 200)
        first.stop()
        let second = try ServerProcess(dataDirectory: first.dataDirectory, arguments: arguments)
        defer { second.stop() }
        try Self.add(3, on: second, party)

        let resumed = try Self.stream(second, party, after: seen)
        defer { resumed.close() }
        #expect(eventually { resumed.received.count >= 3 }, "\(resumed.received.map(\.type))")
        #expect(resumed.received.map(\.type) == ["queue-updated", "vote-updated", "queue-updated"])
        #expect(resumed.received.map(\.id) == [seen + 1, seen + 2, seen + 3], "the ids go on after the restart: no gap, no repeat")
        #expect(resumed.received[1].payload["uri"] as? String == "demo:track:2", "the events as they were sent")
        // The whole log, read by a client that saw nothing yet, ends with the same events, byte for byte.
        let everything = try Self.stream(second, party, after: 0)
        defer { everything.close() }
        #expect(eventually { everything.received.count >= Int(seen) + 3 })
        #expect(everything.received.suffix(3).map(\.raw) == resumed.received.map(\.raw))
        // And live events follow the replay, numbered on.
        try Self.add(4, on: second, party)
        let live = try resumed.waitFor("queue-updated") { $0.id == seen + 4 }
        #expect(live.payload["partyId"] as? String == party.id)
        #expect(eventually { everything.received.last?.id == seen + 4 })
        #expect(resumed.received.count == 4 && Set(resumed.received.compactMap(\.id)).count == 4, "nothing twice")
    }

    @Test func anIdOlderThanTheLogKeepsOrOneItNeverGaveOutIsToldToReload() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        try party.add(1)
        first.stop()
        // An hour of a busy party, then the 60 s upkeep's prune: the oldest events are gone.
        do {
            let store = try PartyStore(path: first.dataDirectory + "/musicvoting.sqlite")
            let anHourAgo = Date().addingTimeInterval(-3_600)
            let busy = (0..<1_100).map { _ in LoggedEvent(type: "queue-updated", message: "{\"type\":\"queue-updated\",\"payload\":{}}", createdAt: anHourAgo) }
            #expect(try store.appendEvents(busy, partyId: party.id).last == 1_101)
            // 2…101: old and not among the last 1,000 (the party's first event is recent, so it stays).
            #expect(try store.pruneEvents(before: Date().addingTimeInterval(-15 * 60), keepingLast: 1_000) == 100)
        }
        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }

        let tooOld = try Self.stream(second, party, after: 1)
        defer { tooOld.close() }
        let resync = try tooOld.waitFor("resync")
        #expect(resync.payload["reason"] as? String == "expired" && resync.payload["partyId"] as? String == party.id)
        #expect(resync.id == 1_101, "it carries the newest id, to resume from next time")
        #expect(tooOld.received.count == 1, "and no replay")
        try Self.add(2, on: second, party)
        #expect(try tooOld.waitFor("queue-updated").id == 1_102)

        // A wall-clock id from before the log (or any id from the future) is one the party never gave out.
        let unknown = try Self.stream(second, party, after: 1_764_880_000_000)
        defer { unknown.close() }
        #expect(try unknown.waitFor("resync").payload["reason"] as? String == "unknown")
        // The query form (for EventSource clients that cannot set the header) is read the same way.
        let byQuery = try SSEClient(port: second.port, path: "/api/party/\(party.id)/events?lastEventId=1")
        defer { byQuery.close() }
        #expect(try byQuery.waitFor("resync").payload["reason"] as? String == "expired")
        // 103…1,102: the last 1,000 (the add above is 1,102).
        let kept = try Self.stream(second, party, after: 102)
        defer { kept.close() }
        #expect(eventually { kept.received.count == 1_000 }, "the last 1,000 are replayed: \(kept.received.count)")
        #expect(kept.received.first?.id == 103 && !kept.received.contains { $0.type == "resync" })
    }
}
