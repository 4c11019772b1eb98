import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R20a: the party plays only while the monitor's audio is heard; otherwise the song is stalled with a reason
/// and its position frozen, and it continues from there.
@Suite("Stalled playback (R20a)", .alsoOnRoundRobinCluster)
struct StallTests {
    /// A party on a server of its own, with a connected monitor (token and stream) playing its first song: in process
    /// unless the test measures time on the wall (`.live`), and on the cluster under the suite's trait.
    private func playingParty(_ transport: Transport = .inProcess) throws -> (TestParty, String, SSEClient) {
        let party = try TestParty.given(transport)
        let token = try party.registerMonitor()
        let monitor = try party.events(monitorToken: token)
        try party.add(1)
        try party.add(2)
        #expect(try party.current()["state"] as? String == "playing")
        return (party, token, monitor)
    }

    private func report(_ party: TestParty, token: String, positionMs: Int, paused: Bool = false, blocked: Bool? = nil) throws {
        var body: [String: Any] = ["position": positionMs, "duration": 30000, "paused": paused]
        if let blocked { body["blocked"] = blocked }
        let response = try party.client.send("POST", "\(party.base)/track/progress", json: body, auth: token)
        #expect(response.status == 204)
    }

    @Test func closingTheMonitorFreezesThePositionAndReRegisteringContinuesThere() throws {
        let (party, token, monitor) = try playingParty(.live)
        let watcher = try party.events()
        // A real TV reports where the song's clock about is; the frozen position never runs ahead of that clock, and a
        // closed stream is found at once.
        Thread.sleep(forTimeInterval: 1.3)
        try report(party, token: token, positionMs: 1200)
        let lastReport = 1200
        // Instances share what they heard once a second: on the cluster the stream may close on one that has not yet.
        Thread.sleep(forTimeInterval: 1.1)
        monitor.close()
        // The closed stream is seen at once (a stream that breaks without a word, by its keepalives within seconds);
        // the TV still counts as there for a few seconds after its last report (R21), so the song may be
        // `monitor-silent` first. (A TV page that closes says so: see the next test.)
        #expect(try eventually(timeout: 15) { try party.current()["stallReason"] as? String == "no-monitor" })
        let stalled = try party.current()
        #expect(stalled["state"] as? String == "stalled")
        #expect(stalled["isPlaying"] as? Bool == false, "older clients see it as not playing")
        #expect(stalled["deviceActive"] as? Bool == false)
        let frozen = stalled["progressMs"] as? Int ?? -1
        // The rule, not a clock: the last audible report, at most a second on, though the stall came seconds later.
        #expect(frozen >= lastReport && frozen <= lastReport + 1000, "frozen where the audio stopped, not counted on: \(frozen)")
        let event = try watcher.waitFor("playback-stalled") { $0.payload["reason"] as? String == "no-monitor" }
        #expect(event.payload["positionMs"] as? String == String(frozen))
        Thread.sleep(forTimeInterval: 1.2)
        #expect(try party.current()["progressMs"] as? Int == frozen, "the clock stands still while stalled")

        // The TV comes back: it registers, plays from the frozen position and reports it.
        _ = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1", "kind": "monitor"], auth: token)
        let again = try party.events(monitorToken: token)
        defer { again.close() }
        #expect(try party.current()["state"] as? String == "stalled", "registered is not yet heard")
        let reported = Date()
        try report(party, token: token, positionMs: frozen)
        let resumed = try party.current()
        #expect(resumed["state"] as? String == "playing" && resumed["isPlaying"] as? Bool == true)
        #expect(resumed["stallReason"] is NSNull)
        let position = resumed["progressMs"] as? Int ?? -1
        let sinceReport = Int(Date().timeIntervalSince(reported) * 1000) + 1
        #expect(position >= frozen && position <= frozen + sinceReport,
                "continues from the frozen position, counting only the time since the report: \(position), \(frozen) + \(sinceReport)")
        #expect(eventually { (try? party.current()["progressMs"] as? Int).flatMap { $0 } ?? -1 > position }, "and counts on from there")
        let changed = try watcher.waitFor("playback-changed") { $0.payload["isPlaying"] as? String == "true" }
        #expect(changed.payload["partyId"] as? String == party.id)
    }

    @Test func aMonitorThatLeavesStallsAtOnce() throws {
        let (party, token, monitor) = try playingParty()
        let watcher = try party.events()
        defer { watcher.close() }
        try report(party, token: token, positionMs: 800)
        let left = try party.client.send("DELETE", "\(party.base)/device", auth: token)
        #expect(left.status == 204)
        // "At once" as an order, not a deadline: the first stall is for the TV that left, not for 5 s of silence.
        let first = try watcher.waitFor("playback-stalled")
        #expect(first.payload["reason"] as? String == "no-monitor",
                "a TV page that goes to the back/forward cache says so; its leaving is not mistaken for silence")
        #expect(try party.current()["deviceActive"] as? Bool == false)
        #expect(monitor.waitForEnd(), "its stream is closed")
        let guest = try party.client.send("DELETE", "\(party.base)/device")
        #expect(guest.status == 401, "a guest cannot unplug the TV")
    }

    @Test func aRefusedPlayIsAutoplayBlockedUntilTheTap() throws {
        let (party, token, monitor) = try playingParty()
        defer { monitor.close() }
        let watcher = try party.events()
        try report(party, token: token, positionMs: 0, paused: true, blocked: true)
        let stalled = try party.current()
        #expect(stalled["state"] as? String == "stalled" && stalled["stallReason"] as? String == "autoplay-blocked")
        #expect(try watcher.waitFor("playback-stalled").payload["reason"] as? String == "autoplay-blocked")
        try report(party, token: token, positionMs: 0, paused: true, blocked: true)
        #expect(try party.current()["stallReason"] as? String == "autoplay-blocked", "a repeated report changes nothing")
        // The tap: the TV plays and says so.
        try report(party, token: token, positionMs: 300)
        #expect(try party.current()["state"] as? String == "playing")
    }

    @Test func aConnectedMonitorWithoutAudibleProgressIsSilentAfterFiveSeconds() throws {
        let (party, token, monitor) = try playingParty(.live)
        defer { monitor.close() }
        let watcher = try party.events()
        defer { watcher.close() }
        let reported = Date()
        try report(party, token: token, positionMs: 500)
        // A connected TV whose audio stuck keeps reporting every second, not audibly: it stays present (R21), so
        // its song is silent, never `no-monitor` (which it would be 8 s after its last report of any kind).
        let stuck = try ReportingTV(party: party, token: token, stuckAt: 500)
        defer { stuck.stop() }
        // Still playing until more than 5 s have passed since the report: whenever we see it playing, that much
        // time may not have passed on our side either (the server heard the report after we sent it).
        let playing = try party.current()
        if playing["state"] as? String != "playing" {
            #expect(Date().timeIntervalSince(reported) > 5, "stalled before 5 s without a report passed: \(playing)")
        }
        #expect(try eventually { try party.current()["stallReason"] as? String == "monitor-silent" })
        #expect(Date().timeIntervalSince(reported) > 5, "silent only after 5 s without an audible report")
        let stalled = try watcher.waitFor("playback-stalled")
        #expect(stalled.payload["reason"] as? String == "monitor-silent")
        let frozen = try party.current()["progressMs"] as? Int ?? -1
        #expect(stalled.payload["positionMs"] as? String == String(frozen))
        // The rule, not a clock: the last audible report, at most a second on (not the 5 s that passed).
        #expect(frozen >= 500 && frozen <= 1500, "frozen near the last audible report, not 5 s on: \(frozen)")
        // Paused reports are not audible: the song stays stalled.
        try report(party, token: token, positionMs: frozen, paused: true)
        #expect(try party.current()["state"] as? String == "stalled")
    }

    @Test func aFailedPlayerIsAProviderErrorSaidOnce() throws {
        let (party, token, monitor) = try playingParty()
        defer { monitor.close() }
        let watcher = try party.events()
        for _ in 0..<3 {
            let body: [String: Any] = ["position": 0, "duration": 30000, "paused": true, "error": "Player nicht verfügbar."]
            #expect(try party.client.send("POST", "\(party.base)/track/progress", json: body, auth: token).status == 204)
        }
        let current = try party.current()
        #expect(current["state"] as? String == "stalled" && current["stallReason"] as? String == "provider-error")
        #expect(try watcher.waitFor("playback-error").payload["message"] as? String == "Player nicht verfügbar.")
        // An event after the three reports marks the end of what they caused (one stream delivers in order).
        try party.add(3)
        try watcher.waitFor("queue-updated")
        #expect(watcher.received.filter { $0.type == "playback-error" }.count == 1, "told once, not with every report")
    }

    @Test func aHostPauseIsNotAStallAndHostPlayRetriesAStalledSong() throws {
        let (party, token, monitor) = try playingParty()
        defer { monitor.close() }
        try report(party, token: token, positionMs: 0, paused: true, blocked: true)
        let paused = try party.host("POST", "/track/pause")
        #expect(paused.status == 200)
        let current = try party.current()
        #expect(current["state"] as? String == "paused" && current["stallReason"] is NSNull)
        try report(party, token: token, positionMs: 0)
        #expect(try party.current()["state"] as? String == "paused", "an audible report does not undo the host's pause")
        _ = try party.host("POST", "/track/resume")
        #expect(try party.current()["state"] as? String == "playing")
        let skipped = try party.host("POST", "/track/next")
        #expect((skipped.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:2")
        #expect(try party.current()["state"] as? String == "playing", "a new song starts with a fresh grace")
    }
}
