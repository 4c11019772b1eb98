import Foundation
import Testing

@Suite("Playback (R14–R16, R19–R23)")
struct PlaybackTests {
    @Test func hostControlsLockedUntilMonitorConnects() throws {
        let party = try TestParty.given()
        try party.add(1)
        #expect(try party.current()["deviceActive"] as? Bool == false)
        #expect(try party.current()["isPlaying"] as? Bool == false, "R16 waits for a monitor")
        for command in ["start", "pause", "resume", "next"] {
            let refused = try party.host("POST", "/track/\(command)")
            #expect(refused.status == 409 && refused.error == "Kein Wiedergabegerät verbunden.", "\(command)")
        }
        let token = try party.registerMonitor()
        #expect(token.count == 32)
        #expect(try party.current()["deviceActive"] as? Bool == true)
        let started = try party.host("POST", "/track/start")
        #expect(started.json["status"] as? String == "playing")
        #expect((started.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:1")
    }

    @Test func startPauseResumeNextFollowTheQueue() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1)
        #expect(try party.current()["isPlaying"] as? Bool == true, "R16: adding to an idle party starts it")
        try party.add(2)
        try party.add(3)
        try party.vote(3, device: "x")
        let moving = try party.current()["progressMs"] as? Int ?? -1
        #expect(try eventually { try party.current()["progressMs"] as? Int ?? -1 > moving }, "the clock runs while playing")
        let beforePause = try party.current()["progressMs"] as? Int ?? -1
        let paused = try party.host("POST", "/track/pause")
        #expect(paused.json["isPlaying"] as? Bool == false)
        let pausedAt = paused.json["progressMs"] as? Int ?? -1
        #expect(pausedAt >= beforePause && pausedAt > 0, "paused where the clock stood: \(pausedAt) ≥ \(beforePause)")
        Thread.sleep(forTimeInterval: 0.3)
        #expect(try party.current()["progressMs"] as? Int == pausedAt, "the position holds while paused")
        try party.add(4)
        #expect(try party.current()["isPlaying"] as? Bool == false, "a host pause is not idle (R16)")
        let resumed = try party.host("POST", "/track/resume")
        #expect(resumed.json["isPlaying"] as? Bool == true)
        #expect(resumed.json["progressMs"] as? Int ?? 0 >= pausedAt)
        let next = try party.host("POST", "/track/next")
        #expect((next.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:3", "most liked plays next")
        #expect(try !party.queueUris().contains("demo:track:1"), "R14: the finished entry is gone")
        let played = try party.host("PUT", "/track/play", json: ["uri": "demo:track:4"])
        #expect((played.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4")
        let guestSongs = try party.queue().filter { $0["autofilled"] as? Bool == false }.compactMap { $0["uri"] as? String }
        #expect(guestSongs == ["demo:track:4", "demo:track:2"])
        let current = try party.current()
        #expect((current["track"] as? [String: Any])?["isCurrentlyPlaying"] as? Bool == true)
        #expect(current["playbackStartedAt"] as? Int ?? 0 > 0)
    }

    @Test func theQueueRefillsWithAutofilledSongsBelowGuestSongs() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(15)
        let queue = try party.queue()
        #expect(queue.first?["uri"] as? String == "demo:track:15")
        #expect(queue.count > 1, "R15: the refill tops up the empty waiting list")
        #expect(queue.dropFirst().allSatisfy { $0["autofilled"] as? Bool == true })
        try party.add(20)
        let after = try party.queue()
        #expect(after[1]["uri"] as? String == "demo:track:20", "guest songs sort above autofilled ones")
        let autofilled = after.last?["uri"] as? String ?? ""
        #expect(try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": autofilled, "deviceId": "g"]).status == 200,
                "asking for an auto-filled song makes it a guest song")
        let promoted = try party.queue()
        #expect(promoted[2]["uri"] as? String == autofilled && promoted[2]["autofilled"] as? Bool == false)
        #expect(promoted.filter { $0["uri"] as? String == autofilled }.count == 1)
        let prepared = try party.host("POST", "/track/prepare-next")
        #expect(prepared.status == 204, "\(prepared)")
        #expect(try party.queueUris() == promoted.compactMap { $0["uri"] as? String }, "a queue that is not dry is not refilled again")
    }

    @Test func aReRegisteredMonitorContinuesAtThePosition() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        try party.add(2)
        #expect(try eventually { try party.current()["progressMs"] as? Int ?? 0 >= 1_000 }, "a second into the song")
        let stream = try party.events()
        let again = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1", "kind": "monitor"], auth: token)
        #expect(again.status == 200 && again.json["monitorToken"] as? String == token)
        let changed = try stream.waitFor("track-changed")
        #expect(Int(changed.payload["progressMs"] as? String ?? "") ?? 0 >= 1_000, "R22: never from 0:00")
        #expect(try party.current()["progressMs"] as? Int ?? 0 >= 1_000)
    }

    @Test func monitorCallsNeedTheMonitorTokenOrHostPin() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        let progress = ["position": 1000, "duration": 30000, "paused": false] as [String: Any]
        #expect(try party.client.send("POST", "\(party.base)/track/progress", json: progress).status == 401)
        #expect(try party.client.send("POST", "\(party.base)/track/progress", json: progress, auth: "guest").status == 403)
        #expect(try party.client.send("POST", "\(party.base)/track/progress", json: progress, auth: token).status == 204)
        let invalid = try party.client.send("POST", "\(party.base)/track/progress", json: ["position": "x"], auth: token)
        #expect(invalid.status == 400)
        #expect(try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv"], auth: "nope").status == 403)
        let blank = try party.client.send("PUT", "\(party.base)/spotify/deviceId", raw: "  ", auth: token)
        #expect(blank.status == 400 && blank.error == "Device ID darf nicht leer sein")
        let set = try party.client.send("PUT", "\(party.base)/spotify/deviceId", raw: "sdk-device-1", auth: token)
        #expect(set.status == 200 && set.json["status"] as? String == "Device ID gesetzt")
        #expect(try party.client.get("\(party.base)/spotify/token").status == 401, "R28: guests never get the token")
        #expect(try party.client.get("\(party.base)/spotify/status").json["loggedIn"] as? Bool == false)
        let next = try party.client.send("POST", "\(party.base)/track/next", auth: token)
        #expect(next.status == 200, "the monitor reports song end itself")
        #expect(try party.client.send("POST", "\(party.base)/track/start", auth: token).status == 403, "start is the host's")
    }

    @Test func deviceActiveFollowsTheMonitorStream() throws {
        let party = try TestParty.given()
        let observer = try party.events()
        let token = try party.registerMonitor()
        try observer.waitFor("device-changed") { $0.payload["deviceActive"] as? String == "true" }
        let monitorStream = try party.events(monitorToken: token)
        #expect(monitorStream.status == 200)
        monitorStream.close()
        // The registration heartbeat keeps it active for 15 s; then the closed stream makes it inactive.
        try observer.waitFor("device-changed", timeout: 15 + 2 * patience) { $0.payload["deviceActive"] as? String == "false" }
        #expect(try party.current()["deviceActive"] as? Bool == false)
        #expect(try party.host("POST", "/track/start").status == 409)
    }
}

@Suite("R15 refill memory")
struct RefillMemoryTests {
    @Test func aSongThatJustPlayedIsNotRefilledAgain() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(24)
        var played: [String] = []
        for _ in 0..<12 {
            let current = try party.current()
            let uri = try #require((current["track"] as? [String: Any])?["uri"] as? String)
            played.append(uri)
            #expect(try party.host("DELETE", "/track/remove", json: ["uri": uri]).status == 200)
            let waiting = try party.queue().filter { $0["isCurrentlyPlaying"] as? Bool == false }.compactMap { $0["uri"] as? String }
            #expect(!waiting.contains(uri), "\(uri) came straight back")
        }
        #expect(Set(played).count == played.count, "twelve different songs in a row: \(played)")
    }

    /// R20: the host always skips; the monitor's song end names its entry; only older players are debounced.
    @Test func hostSkipsAlwaysAdvanceAndSongEndsNameTheirEntry() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        for number in 1...6 { try party.add(number) }
        func currentEntry() throws -> (id: String, uri: String) {
            let track = try party.current()["track"] as? [String: Any] ?? [:]
            return (track["id"] as? String ?? "", track["uri"] as? String ?? "")
        }
        let first = try currentEntry()
        #expect(first.uri == "demo:track:1")
        _ = try party.host("POST", "/track/next")
        _ = try party.host("POST", "/track/next")
        #expect(try currentEntry().uri == "demo:track:3", "two host skips within a second are two songs")

        let playing = try currentEntry()
        let stale = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": first.id], auth: token)
        #expect(stale.status == 200 && (stale.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:3",
                "a song end for an entry that is no longer current is a no-op answering the current state")
        let ended = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": playing.id], auth: token)
        #expect((ended.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4", "the exact song end advances at once")
        let retried = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": playing.id], auth: token)
        #expect((retried.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4", "a retried report is harmless")
        let legacy = try party.client.send("POST", "\(party.base)/track/next", auth: token)
        #expect((legacy.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4",
                "an older player's song end without an entry within 3 s of an advance is a no-op")
        let numeric = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": Int(try currentEntry().id) ?? 0], auth: token)
        #expect((numeric.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:5", "a numeric entry id works too")
        for bad in ["-1", "abc", "99999999999999999999"] {
            #expect(try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": bad], auth: token).status == 400)
        }
    }

    /// Issue 24: ▶ on an empty party starts the refill (R15) instead of doing nothing.
    @Test func startOnAnEmptyPartyStartsTheRefill() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        let started = try party.host("POST", "/track/start")
        #expect(started.json["status"] as? String == "playing")
        #expect((started.json["track"] as? [String: Any])?["autofilled"] as? Bool == true, "a song from the refill")
        #expect(try party.queue().count > 1, "and more wait behind it")
    }
}
