import Foundation
import PartyTestSupport
import Testing

@Suite("Playback (R14–R16, R19–R23)")
struct PlaybackRoutesTests {
    @Test func hostControlsLockedUntilMonitorConnects() throws {
        let party = try TestParty.given()
        try party.add(1)
        let idle = try party.current()
        #expect(idle["deviceActive"] as? Bool == false && idle["isPlaying"] as? Bool == false, "R16 waits for a monitor: \(idle)")
        for command in ["start", "pause", "resume", "next"] {
            let refused = try party.host("POST", "/track/\(command)")
            #expect(refused.isError(409, "Kein Wiedergabegerät verbunden.") && refused.code == "no_device", "\(command): \(refused)")
        }
        let token = try party.registerMonitor()
        #expect(token.count == 32)
        #expect(try party.current()["deviceActive"] as? Bool == true)
        let started = try party.host("POST", "/track/start")
        #expect(started.status == 200 && started.json["status"] as? String == "playing", "\(started)")
        #expect((started.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:1")
    }

    @Test func currentTellsTheStateOfAnIdleParty() throws {
        let party = try TestParty.given()
        let current = try party.current()
        #expect(current["isPlaying"] as? Bool == false && current["state"] as? String == "idle", "\(current)")
        #expect(current["stallReason"] is NSNull && current["progressMs"] as? Int == 0 && current["deviceActive"] as? Bool == false)
        #expect(current["track"] == nil && current["playbackStartedAt"] == nil)
    }

    @Test func startPauseResumeNextFollowTheQueue() throws {
        let party = try TestParty.given()
        let clock = party.clock
        _ = try party.registerMonitor()
        try party.add(1)
        let playing = try party.current()
        #expect(playing["isPlaying"] as? Bool == true && playing["state"] as? String == "playing", "R16: adding to an idle party starts it")
        try party.add(2)
        try party.add(3)
        try party.vote(3, device: "x")
        let startedAt = try party.current()["progressMs"] as? Int ?? -1
        clock.advance(by: 2)
        let beforePause = try party.current()["progressMs"] as? Int ?? -1
        #expect(beforePause == startedAt + 2_000, "R19: the position is now − startedAt while playing")
        let paused = try party.host("POST", "/track/pause")
        #expect(paused.status == 200 && paused.json["isPlaying"] as? Bool == false, "\(paused)")
        #expect(paused.json["progressMs"] as? Int == beforePause, "paused where the clock stood")
        clock.advance(by: 3)
        let held = try party.current()
        #expect(held["progressMs"] as? Int == beforePause && held["state"] as? String == "paused", "the position holds while paused: \(held)")
        try party.add(4)
        #expect(try party.current()["isPlaying"] as? Bool == false, "a host pause is not idle (R16)")
        let resumed = try party.host("POST", "/track/resume")
        #expect(resumed.status == 200 && resumed.json["isPlaying"] as? Bool == true && resumed.json["progressMs"] as? Int == beforePause,
                "resume continues the current entry at the paused position: \(resumed)")
        clock.advance(by: 1)
        #expect(try party.current()["progressMs"] as? Int == beforePause + 1_000)
        let next = try party.host("POST", "/track/next")
        #expect(next.status == 200 && next.json["status"] as? String == "playing")
        #expect((next.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:3", "most liked plays next")
        #expect(try !party.queueUris().contains("demo:track:1"), "R14: the finished entry is gone")
        let played = try party.host("PUT", "/track/play", json: ["uri": "demo:track:4"])
        #expect(played.status == 200 && played.json["status"] as? String == "playing")
        #expect((played.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4")
        let guestSongs = try party.queue().filter { $0["autofilled"] as? Bool == false }.compactMap { $0["uri"] as? String }
        #expect(guestSongs == ["demo:track:4", "demo:track:2"])
        let current = try party.current()
        #expect((current["track"] as? [String: Any])?["isCurrentlyPlaying"] as? Bool == true)
        #expect(current["playbackStartedAt"] as? Int == Int(clock.now().timeIntervalSince1970 * 1000))
    }

    @Test func playingAUriNeedsOneThatIsQueued() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1)
        let missing = try party.host("PUT", "/track/play", json: [String: String]())
        #expect(missing.isError(400, "Missing uri"), "\(missing)")
        let queued = try party.queueUris()
        let elsewhere = try #require((1...30).map { "demo:track:\($0)" }.first { !queued.contains($0) })
        let absent = try party.host("PUT", "/track/play", json: ["uri": elsewhere])
        #expect(absent.isError(404, "Song nicht in der Warteschlange."), "\(absent)")
        let guest = try party.client.send("PUT", "\(party.base)/track/play", json: ["uri": "demo:track:1"])
        #expect(guest.isError(401, "Host-PIN fehlt."), "\(guest)")
    }

    @Test func theQueueRefillsWithAutofilledSongsBelowGuestSongs() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(15)
        let queue = try party.queue()
        #expect(queue.first?["uri"] as? String == "demo:track:15")
        #expect(queue.count > 1, "R15: the refill tops up the empty waiting list")
        #expect(queue.dropFirst().allSatisfy { $0["autofilled"] as? Bool == true })
        // R9's tie-break is the earlier `added_at`: the clock moves between adds, as it would between guests.
        party.clock.advance(by: 1)
        try party.add(20)
        let after = try party.queue()
        #expect(after[1]["uri"] as? String == "demo:track:20", "guest songs sort above autofilled ones")
        let autofilled = after.last?["uri"] as? String ?? ""
        party.clock.advance(by: 1)
        let asked = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": autofilled, "deviceId": "g"])
        #expect(asked.status == 200, "asking for an auto-filled song makes it a guest song: \(asked)")
        let promoted = try party.queue()
        #expect(promoted[2]["uri"] as? String == autofilled && promoted[2]["autofilled"] as? Bool == false)
        #expect(promoted.filter { $0["uri"] as? String == autofilled }.count == 1)
        let prepared = try party.host("POST", "/track/prepare-next")
        #expect(prepared.status == 204 && prepared.body.isEmpty, "\(prepared)")
        #expect(try party.queueUris() == promoted.compactMap { $0["uri"] as? String }, "a queue that is not dry is not refilled again")
    }

    @Test func monitorCallsNeedTheMonitorTokenOrHostPin() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        let progress = ["position": 1000, "duration": 30000, "paused": false] as [String: Any]
        let anonymous = try party.client.send("POST", "\(party.base)/track/progress", json: progress)
        #expect(anonymous.isError(401, "Host-PIN fehlt."), "\(anonymous)")
        let guest = try party.client.send("POST", "\(party.base)/track/progress", json: progress, auth: "guest")
        #expect(guest.isError(403, "Falsche Host-PIN."), "\(guest)")
        let reported = try party.client.send("POST", "\(party.base)/track/progress", json: progress, auth: token)
        #expect(reported.status == 204 && reported.body.isEmpty, "\(reported)")
        let invalid = try party.client.send("POST", "\(party.base)/track/progress", json: ["position": "x"], auth: token)
        #expect(invalid.isError(400, "Invalid progress: needs position, duration (ms) and paused"), "\(invalid)")
        let foreign = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv"], auth: "nope")
        #expect(foreign.isError(403, "Falsche Host-PIN."), "\(foreign)")
        let blank = try party.client.send("PUT", "\(party.base)/spotify/deviceId", raw: "  ", auth: token)
        #expect(blank.isError(400, "Device ID darf nicht leer sein"), "\(blank)")
        let set = try party.client.send("PUT", "\(party.base)/spotify/deviceId", raw: "sdk-device-1", auth: token)
        #expect(set.status == 200 && set.json["status"] as? String == "Device ID gesetzt", "\(set)")
        let sdk = try party.client.get("\(party.base)/spotify/deviceId")
        #expect(sdk.status == 200 && sdk.text == "sdk-device-1", "\(sdk)")
        let tokenForGuest = try party.client.get("\(party.base)/spotify/token")
        #expect(tokenForGuest.isError(401, "Host-PIN fehlt."), "R28: guests never get the token: \(tokenForGuest)")
        let status = try party.client.get("\(party.base)/spotify/status")
        #expect(status.status == 200 && status.json["loggedIn"] as? Bool == false, "\(status)")
        let next = try party.client.send("POST", "\(party.base)/track/next", auth: token)
        #expect(next.status == 200, "the monitor reports song end itself: \(next)")
        let start = try party.client.send("POST", "\(party.base)/track/start", auth: token)
        #expect(start.isError(403, "Falsche Host-PIN."), "start is the host's: \(start)")
    }

    @Test func aMonitorRegistersAndLeaves() throws {
        let party = try TestParty.given()
        let missingDevice = try party.host("PUT", "/device", json: ["kind": "monitor"])
        #expect(missingDevice.isError(400, "Missing deviceId"), "\(missingDevice)")
        let wrongKind = try party.host("PUT", "/device", json: ["deviceId": "tv-1", "kind": "speaker"])
        #expect(wrongKind.isError(400, "Invalid kind: must be 'monitor'"), "\(wrongKind)")
        let registered = try party.host("PUT", "/device", json: ["deviceId": "tv-1", "kind": "monitor"])
        #expect(registered.status == 200 && registered.json["deviceActive"] as? Bool == true, "\(registered)")
        let token = try #require(registered.json["monitorToken"] as? String)
        let again = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1", "kind": "monitor"], auth: token)
        #expect(again.status == 200 && again.json["monitorToken"] as? String == token, "the monitor re-registers with its token: \(again)")
        let left = try party.client.send("DELETE", "\(party.base)/device", auth: token)
        #expect(left.status == 204 && left.body.isEmpty, "\(left)")
        #expect(try party.current()["deviceActive"] as? Bool == false)
        let refused = try party.host("POST", "/track/start")
        #expect(refused.isError(409, "Kein Wiedergabegerät verbunden."), "\(refused)")
    }

    /// R22 through the API: a re-registered monitor continues the current entry where it stood (the
    /// `track-changed` event it gets is the end-to-end tests' part).
    @Test func aReRegisteredMonitorContinuesAtThePosition() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        try party.add(2)
        party.clock.advance(by: 4)
        let again = try party.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1", "kind": "monitor"], auth: token)
        #expect(again.status == 200, "\(again)")
        let current = try party.current()
        #expect(current["progressMs"] as? Int == 4_000 && current["isPlaying"] as? Bool == true, "never from 0:00: \(current)")
    }
}

@Suite("R15 refill memory and R20 advances")
struct RefillAndAdvanceTests {
    @Test func aSongThatJustPlayedIsNotRefilledAgain() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(24)
        var played: [String] = []
        for _ in 0..<12 {
            let uri = try #require(try party.currentUri())
            played.append(uri)
            #expect(try party.host("DELETE", "/track/remove", json: ["uri": uri]).status == 200)
            let waiting = try party.queue().filter { $0["isCurrentlyPlaying"] as? Bool == false }.compactMap { $0["uri"] as? String }
            #expect(!waiting.contains(uri), "\(uri) came straight back")
        }
        #expect(Set(played).count == played.count, "twelve different songs in a row: \(played)")
    }

    /// R20: the host always skips; the monitor's song end names its entry; only older players are debounced (3 s).
    @Test func hostSkipsAlwaysAdvanceAndSongEndsNameTheirEntry() throws {
        let party = try TestParty.given()
        let token = try party.registerMonitor()
        for number in 1...7 { try party.add(number) }
        func currentEntry() throws -> (id: String, uri: String) {
            let track = try party.current()["track"] as? [String: Any] ?? [:]
            return (track["id"] as? String ?? "", track["uri"] as? String ?? "")
        }
        let first = try currentEntry()
        #expect(first.uri == "demo:track:1")
        _ = try party.host("POST", "/track/next")
        _ = try party.host("POST", "/track/next")
        #expect(try currentEntry().uri == "demo:track:3", "two host skips at the same instant are two songs")

        let playing = try currentEntry()
        let stale = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": first.id], auth: token)
        #expect(stale.status == 200 && (stale.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:3",
                "a song end for an entry that is no longer current is a no-op answering the current state")
        let ended = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": playing.id], auth: token)
        #expect((ended.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4", "the exact song end advances at once")
        let retried = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": playing.id], auth: token)
        #expect((retried.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4", "a retried report is harmless")
        party.clock.advance(by: 2.9)
        let legacy = try party.client.send("POST", "\(party.base)/track/next", auth: token)
        #expect((legacy.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:4",
                "an older player's song end without an entry within 3 s of an advance is a no-op")
        party.clock.advance(by: 0.2)
        let legacyLater = try party.client.send("POST", "\(party.base)/track/next", auth: token)
        #expect((legacyLater.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:5", "after 3 s it advances")
        let numeric = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": Int(try currentEntry().id) ?? 0], auth: token)
        #expect((numeric.json["track"] as? [String: Any])?["uri"] as? String == "demo:track:6", "a numeric entry id works too")
        for bad in ["-1", "abc", "99999999999999999999"] {
            let refused = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": bad], auth: token)
            #expect(refused.isError(400, "Invalid entryId"), "\(bad): \(refused)")
        }
    }

    /// ▶ on an empty party starts the refill (R15) instead of doing nothing.
    @Test func startOnAnEmptyPartyStartsTheRefill() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        let started = try party.host("POST", "/track/start")
        #expect(started.status == 200 && started.json["status"] as? String == "playing", "\(started)")
        #expect((started.json["track"] as? [String: Any])?["autofilled"] as? Bool == true, "a song from the refill")
        #expect(try party.queue().count > 1, "and more wait behind it")
    }
}
