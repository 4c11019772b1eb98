import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// What `systemctl restart musicvoting` does to the installed service after `musicvoting install` put a new binary in
/// place, with the test playing systemd: it holds the listening socket (`musicvoting.socket`), sends the running
/// server SIGTERM, waits for its exit and starts the new one on the same socket. Connections that arrive in between
/// wait in the socket's queue instead of being refused.
@Suite("An upgrade of the installed service", .serialized)
struct InstallerUpgradeTests {
    @Test func aRestartOnSystemdsSocketFailsNoLikeLosesNoneAndTheSongPlaysOn() throws {
        let socket = try PassedSocket()
        let data = FileManager.default.temporaryDirectory.appendingPathComponent("mv-upgrade-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: data) }
        // Every like comes from a new guest: the new-guest budget per network would refuse them, not the restart.
        let arguments = ["--data", data, "--drain-seconds", "10", "--max-new-guests-per-network", "0"]
        let old = try ActivatedServer(socket: socket, arguments: arguments)
        defer { old.kill() }
        let party = try TestParty(old)
        let token = try party.registerMonitor()
        try party.add(1, device: "adder-1")
        for number in 2...5 { #expect(try party.add(number, device: "adder-\(number)").status == 200) }
        // Far enough from the song's end that it still plays when the new server answers.
        #expect(try eventually(timeout: 60) {
            let current = try party.current()
            let duration = (current["track"] as? [String: Any])?["duration_ms"] as? Int ?? 0
            let progress = current["progressMs"] as? Int ?? 0
            return current["isPlaying"] as? Bool == true && progress >= 1_000 && progress <= duration - 15_000
        }, "a song plays")

        // The TV's player, telling the server what it plays as the TV page does, through the restart too.
        let player = try ReportingTV(party: party, token: token)
        defer { player.stop() }
        // The TV's stream, reconnecting after the `retry:` it was told, as the TV page's EventSource does.
        let tv = ResumingSubscriber(port: socket.port, path: "/api/spotify/events?partyId=\(party.id)&source=web&monitorToken=\(token)",
                                    source: "127.0.0.1", honoursRetry: true)
        defer { tv.stop() }
        #expect(eventually { tv.connections >= 1 }, "the TV holds its stream")
        // A party's storm: 4 guests' threads, 25 likes a second each, on connections of their own.
        let storm = LikeStorm(port: socket.port, base: party.base, songs: 2...5, threads: 4, pause: 0.04)
        defer { storm.stop() }
        #expect(eventually { storm.acknowledgedCount >= 40 }, "likes are acknowledged")

        let before = try party.current()
        let beforeAt = Date()
        let beforeProgress = before["progressMs"] as? Int ?? -1
        #expect(before["isPlaying"] as? Bool == true, "\(before)")
        old.terminate()
        let status = old.waitForExit(timeout: 15)
        let drained = Date().timeIntervalSince(beforeAt)
        #expect(status == 0, "a drain is a clean exit: \(old.errorOutput().suffix(500))")
        let new = try ActivatedServer(socket: socket, arguments: arguments)
        defer { new.kill() }
        let replaced = Date().timeIntervalSince(beforeAt)

        // The song goes on: the new server holds it where its clock stood (R20a: no TV is connected to a new
        // process) until the TV's audible report continues it where that report says the TV's audio is. At no
        // moment does the position go back. The report that continues it may have waited in the socket's queue
        // through the restart: it says where the TV was when it sent it, after the SIGTERM at the earliest, and a
        // report changes no state of a song that plays (R23). So the song plays on from a position between the
        // TV's at the SIGTERM (less the second between two reports) and the TV's now. Each position is read
        // between two readings of the TV's clock.
        let audibleAtTerm = player.position(at: beforeAt)
        var positions: [Int] = []
        var playing: [String: Any] = [:]
        var audibleNow = 0
        #expect(try eventually(timeout: 10) {
            playing = try party.current()
            audibleNow = player.position(at: Date())
            let position = playing["progressMs"] as? Int ?? -1
            positions.append(position)
            return playing["isPlaying"] as? Bool == true && position >= audibleAtTerm - 1_500 && position <= audibleNow + 1_500
        }, "the song plays again where the TV's audio was since the SIGTERM, \(audibleAtTerm)–\(audibleNow) ms: \(positions) ms, \(playing)")
        let (beforeTrack, afterTrack) = ((before["track"] as? [String: Any])?["uri"] as? String, (playing["track"] as? [String: Any])?["uri"] as? String)
        #expect(beforeTrack != nil && afterTrack == beforeTrack, "the same song: \(String(describing: beforeTrack)) then \(String(describing: afterTrack))")
        #expect(positions.allSatisfy { $0 >= beforeProgress }, "never back from \(beforeProgress) ms: \(positions)")

        let acknowledged = storm.acknowledgedCount
        #expect(eventually { storm.acknowledgedCount >= acknowledged + 40 }, "likes go on with the new server")
        #expect(eventually(timeout: 10) { tv.connections >= 2 }, "the TV's stream is back")
        #expect(tv.resumeTimes.allSatisfy { $0 < 8 }, "back within its retry (at most 6 s) and a start: \(tv.resumeTimes)")
        storm.stop()
        let newest = try #require(Int(try runToExit("/usr/bin/sqlite3", [data + "/musicvoting.sqlite",
            "SELECT MAX(seq) FROM party_events WHERE party_id = '\(party.id)'"]).output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(eventually { tv.ids.last == newest }, "the TV hears every event up to \(newest): \(tv.ids.last ?? -1)")
        tv.stop()
        let ids = tv.ids
        let expected = ids.first.map { Array($0...(ids.last ?? $0)) } ?? []
        #expect(!ids.isEmpty && ids == expected, "the TV's events without a gap or a repeat: \(ids.count) ids from \(ids.first ?? -1)")
        #expect(tv.failures.isEmpty && tv.failedAttempts.isEmpty, "\(tv.failures) \(tv.failedAttempts)")
        let failed = storm.failures
        #expect(failed.isEmpty, "likes that failed: \(failed.prefix(5))")
        player.stop()
        #expect(player.failures.isEmpty, "progress reports that failed: \(player.failures.prefix(5))")

        new.terminate()
        #expect(new.waitForExit(timeout: 15) == 0)
        let voters = Set(try runToExit("/usr/bin/sqlite3", [data + "/musicvoting.sqlite", """
            SELECT v.device_id FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'
            """]).output.split(separator: "\n").map(String.init))
        let lost = storm.acknowledged.filter { !voters.contains($0.device) }
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10).map(\.device))")
        func milliseconds(_ seconds: TimeInterval) -> Int { Int(seconds * 1000) }
        print("restart on systemd's socket: exit \(milliseconds(drained)) ms after SIGTERM, new server up after \(milliseconds(replaced)) ms; "
              + "\(storm.acknowledged.count) likes acknowledged, \(lost.count) lost, \(failed.count) failed; "
              + "TV stream back after \(tv.resumeTimes.map(milliseconds)) ms (its retry: included); "
              + "position \(beforeProgress) ms, then \(positions) ms until it played on where the TV was (\(audibleAtTerm)–\(audibleNow) ms)")
    }
}

/// The TV page's player: reports about once a second (as Public/js/pages/monitor.js does) the position it plays at
/// (`POST …/track/progress`), audible, its audio running on the TV's own clock from where the server said the song
/// was, so the server sees it heard. A TV whose audio is stuck (`stuckAt`) reports that position, not audibly: it is
/// connected (R21), and its song is silent (R20a).
final class ReportingTV: @unchecked Sendable {
    private let state = Mutex((stopping: false, failures: [String]()))
    private let finished = DispatchSemaphore(value: 0)
    /// Where the song was when the TV started to play it, and when that was.
    private let start: Int
    private let began: Date
    private let stuck: Int?

    /// `@unchecked Sendable`: the thread and the test share only `state`, under its lock.
    init(party: TestParty, token: String, stuckAt stuck: Int? = nil) throws {
        let current = try party.current()
        (start, began, self.stuck) = (current["progressMs"] as? Int ?? 0, Date(), stuck)
        let duration = (current["track"] as? [String: Any])?["duration_ms"] as? Int ?? 0
        let (client, path) = (party.client, party.base + "/track/progress")
        Thread { [self] in
            defer { finished.signal() }
            while !state.withLock({ $0.stopping }) {
                let position = self.position(at: Date())
                let body: [String: Any] = ["position": position, "duration": duration, "paused": stuck != nil]
                let answer = Result { try client.send("POST", path, json: body, auth: token) }
                if case .success(let response) = answer, response.status == 204 {} else {
                    state.withLock { $0.failures.append((try? answer.get()).map(\.description) ?? "no answer") }
                }
                Thread.sleep(forTimeInterval: 1)
            }
        }.start()
    }

    var failures: [String] { state.withLock { $0.failures } }

    /// Where the TV's audio is at `time`, on its own clock.
    func position(at time: Date) -> Int { stuck ?? start + Int(time.timeIntervalSince(began) * 1000) }

    /// Stops reporting and waits for the report in flight. Safe to repeat.
    func stop() {
        guard !state.withLock({ state in defer { state.stopping = true }; return state.stopping }) else { return }
        finished.wait()
    }
}
