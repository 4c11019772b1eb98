import Foundation
import Observation
import Testing
@testable import MusicVotingKit

@Suite("Host dashboard")
@MainActor
struct HostDashboardTests {
    /// A party with three songs and a dashboard that follows its stream.
    static func setUp(_ server: KitServer) async throws -> (CreatedParty, HostDashboard, PartyEventStream, Task<Void, Never>, Sessions) {
        let created = try await server.client().createParty(provider: "demo")
        for number in 1...3 { try await server.client().add(created.id, uri: "demo:track:\(number)", deviceId: "g\(number)") }
        let (sessions, _) = temporarySessions()
        sessions.save(HostSession(partyId: created.id, hostPin: created.hostPin, guestPin: created.pin))
        let dashboard = HostDashboard(client: server.client(hostPin: created.hostPin), partyId: created.id, sessions: sessions, strings: german)
        await dashboard.load()
        let stream = PartyEventStream(baseURL: server.base, partyId: created.id, reconnectDelay: 0.5)
        stream.start()
        let seen = EventLog()
        let reader = Task { @MainActor in
            for await event in stream.events {
                seen.append(event)
                await dashboard.handle(event)
            }
        }
        #expect(await eventually { seen.events.contains { $0.type == PartyEvent.connected } }, "the dashboard's stream is open")
        return (created, dashboard, stream, reader, sessions)
    }

    @Test func controlsUnlockLiveWhenAMonitorRegistersAndTheFirstPlayStarts() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, dashboard, stream, reader, _) = try await Self.setUp(server)
        defer { reader.cancel(); stream.stop() }
        #expect(!dashboard.controlsEnabled && dashboard.controlsHint == "Kein Wiedergabegerät verbunden. Öffne den Monitor auf dem Fernseher, dann geht es los.")
        // Before the first play the first song is the "now playing" preview, and not repeated in the list.
        #expect(dashboard.preview?.uri == "demo:track:1")
        #expect(dashboard.upNext.map(\.uri) == ["demo:track:2", "demo:track:3"])
        #expect(dashboard.playIcon == .play && dashboard.progressText == "0:00 / 0:00")
        await dashboard.playPause()
        #expect(dashboard.current == nil, "disabled controls make no call")

        _ = try await server.client(hostPin: created.hostPin).registerMonitor(created.id, deviceId: "tv")
        #expect(await eventually { dashboard.controlsEnabled && dashboard.controlsHint == nil }, "device-changed unlocks")
        await dashboard.playPause()
        #expect(dashboard.current?.uri == "demo:track:1" && dashboard.playIcon == .pause, "the first press starts")
        #expect(dashboard.preview == nil && dashboard.upNext.map(\.uri) == ["demo:track:2", "demo:track:3"])
        await dashboard.playPause()
        #expect(dashboard.playIcon == .play && dashboard.current?.uri == "demo:track:1", "then pause, not start again")
        await dashboard.playPause()
        #expect(dashboard.playIcon == .pause && dashboard.current?.uri == "demo:track:1", "and resume")
    }

    @Test func progressMirrorsEventsAndResetsOnTrackChangedChangingStateOnlyForNewValues() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, dashboard, stream, reader, _) = try await Self.setUp(server)
        defer { reader.cancel(); stream.stop() }
        let host = server.client(hostPin: created.hostPin)
        let token = try await host.registerMonitor(created.id, deviceId: "tv").monitorToken
        #expect(await eventually { dashboard.controlsEnabled })
        await dashboard.playPause()
        let reported = Date()
        try await server.client().reportProgress(created.id, token: token, positionMs: 12_000, durationMs: 32_000, paused: false)
        // The report also un-stalls the song, and the reload that follows reads the server's clock: 12 s and at most
        // the time that passed since we sent the report.
        #expect(await eventually { dashboard.progressMs >= 12_000 && dashboard.progressText.hasSuffix(" / 0:32") },
                "mirrors the server's progress")
        let sinceReport = Int(Date().timeIntervalSince(reported) * 1000) + 1
        #expect(dashboard.progressMs <= 12_000 + sinceReport, "\(dashboard.progressMs) ≤ 12000 + \(sinceReport)")
        #expect(dashboard.progressText.hasPrefix("0:\(dashboard.progressMs / 1000) "), "\(dashboard.progressText)")

        // From here on events are fed by hand, so nothing live interferes with counting changes.
        reader.cancel()
        stream.stop()
        await dashboard.handle(PartyEvent(type: "progress", payload: ["partyId": created.id, "position": "12000", "duration": "32000"]))
        let changes = ChangeCounter()
        withObservationTracking { _ = dashboard.progressMs } onChange: { changes.count() }
        await dashboard.handle(PartyEvent(type: "progress", payload: ["partyId": created.id, "position": "12000", "duration": "32000"]))
        #expect(changes.value == 0, "the same value again is no change a view would redraw for")
        await dashboard.handle(PartyEvent(type: "progress", payload: ["partyId": created.id, "position": "13000", "duration": "32000"]))
        #expect(changes.value == 1 && dashboard.progressMs == 13_000)
        try await Task.sleep(nanoseconds: 1_200_000_000)
        #expect(dashboard.progressMs == 13_000, "no timer of its own: only events move the bar")

        let skipped = Date()
        _ = try await host.next(created.id)
        await dashboard.handle(PartyEvent(type: "track-changed", payload: ["partyId": created.id]))
        let sinceSkip = Int(Date().timeIntervalSince(skipped) * 1000) + 1
        #expect(dashboard.current?.uri == "demo:track:2" && dashboard.progressMs <= sinceSkip,
                "reset on track-changed: \(dashboard.progressMs) ms, at most the \(sinceSkip) ms since the skip")
    }

    @Test func aStallReasonIsShownAndPartyEndedOfAnotherPartyIsIgnored() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, dashboard, stream, reader, sessions) = try await Self.setUp(server)
        defer { reader.cancel(); stream.stop() }
        let host = server.client(hostPin: created.hostPin)
        _ = try await host.registerMonitor(created.id, deviceId: "tv")
        #expect(await eventually { dashboard.controlsEnabled })
        await dashboard.playPause()
        // The TV leaves without a word: the server stalls the song (R20a) and says why.
        #expect(await eventually(15) { dashboard.stallText == "Der Fernseher meldet sich nicht." || dashboard.stallText == "Kein Fernseher verbunden." },
                "stall reason from the server")

        await dashboard.handle(PartyEvent(type: "party-ended", payload: ["partyId": "another-party"]))
        #expect(!dashboard.ended && sessions.host != nil)
        await dashboard.endParty()
        #expect(dashboard.ended && sessions.host == nil, "ended with DELETE and the host PIN; the session is cleared")
        await dashboard.load()
        await dashboard.skip()
        #expect(dashboard.message == "Die Party ist vorbei.", "no further call changes anything")
    }

    /// A read asked before a pause whose answer comes after the pause's own read: the pause stays shown.
    @Test func anOlderReadAnsweringLastNeverShowsAnOlderState() async throws {
        let track = #"{"id":"t1","uri":"demo:track:1","name":"Song","artists":[{"name":"A"}],"album":{"name":"","images":[]},"#
            + #""duration_ms":1000,"likeCount":0,"isCurrentlyPlaying":true,"autofilled":false}"#
        let reads = ChangeCounter()
        let server = try HostileServer { connection in
            guard connection.head.hasPrefix("GET /api/party/p/track/current") else {
                connection.send(HostileServerTests.json(#"{"queue":[]}"#))
                return
            }
            reads.count()
            // The first read answers last, from before the pause: the song playing.
            let first = reads.value == 1
            if first { Thread.sleep(forTimeInterval: 1) }
            connection.send(HostileServerTests.json(#"{"isPlaying":\#(first),"state":"\#(first ? "playing" : "paused")","deviceActive":true,"progressMs":0,"track":\#(track)}"#))
        }
        defer { server.stop() }
        let (sessions, _) = temporarySessions()
        let dashboard = HostDashboard(client: MusicVotingClient(baseURL: server.base), partyId: "p", sessions: sessions, strings: german)
        let older = Task { await dashboard.load() }
        #expect(await eventually { reads.value == 1 }, "the first read was asked")
        await dashboard.load()
        #expect(dashboard.state == "paused" && dashboard.playIcon == .play)
        await older.value
        #expect(dashboard.state == "paused" && dashboard.playIcon == .play, "the older answer came last and was not shown")
    }
}

/// Counts Observation's change callbacks (which may run on any thread).
final class ChangeCounter: @unchecked Sendable {
    // @unchecked: `lock` guards `counted`.
    private let lock = NSLock()
    private var counted = 0
    func count() { lock.lock(); counted += 1; lock.unlock() }
    var value: Int { lock.lock(); defer { lock.unlock() }; return counted }
}
