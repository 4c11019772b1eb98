import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

@Suite("R7 restart and durability")
struct RestartTests {
    @Test func everythingSurvivesARestart() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        let token = try party.registerMonitor()
        try party.add(1)
        try party.add(2)
        try party.vote(2, device: "a")
        _ = try party.host("PUT", "/blacklist", json: ["word": "Schlager"])
        #expect(try party.host("PUT", "/default-playlist", json: ["playlistId": "album2"]).status == 200)
        #expect(try eventually { try party.current()["progressMs"] as? Int ?? 0 >= 1_000 }, "a second into the song")
        first.stop()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        #expect(try again.client.get("/api/party/join/\(party.pin)").json["id"] as? String == party.id)
        #expect(try again.client.get(party.base, headers: ["Authorization": "Bearer \(party.hostPin)"]).json["hostPin"] as? String == party.hostPin)
        let queue = try again.queue(device: "a")
        #expect(queue.first?["uri"] as? String == "demo:track:1" && queue.first?["isCurrentlyPlaying"] as? Bool == true)
        #expect(queue.first { $0["uri"] as? String == "demo:track:2" }?["hasVoted"] as? Bool == true)
        let current = try again.current()
        // R20a: nobody is known to hear the song in a new process: it waits where it stood for the TV to come back.
        #expect(current["state"] as? String == "stalled" && current["stallReason"] as? String == "no-monitor")
        #expect(current["isPlaying"] as? Bool == false)
        let frozen = current["progressMs"] as? Int ?? 0
        #expect(frozen >= 1_000, "the position continues from before the restart")
        #expect(current["deviceActive"] as? Bool == false, "no monitor is connected to the new process")
        #expect(try again.host("GET", "/blacklist").json["words"] as? [String] == ["Schlager"])
        let reRegistered = try again.client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-1"], auth: token)
        #expect(reRegistered.status == 200, "the monitor token survives the restart")
        let heard = try again.client.send("POST", "\(party.base)/track/progress", json: ["position": frozen, "duration": 32000, "paused": false],
                                          auth: token)
        #expect(heard.status == 204)
        let playing = try again.current()
        #expect(playing["state"] as? String == "playing" && (playing["progressMs"] as? Int ?? 0) >= frozen, "the TV continues it there")
    }

    /// R20a: a stall's reason is stored with the playback (every instance tells the same); after a restart
    /// no TV is connected, so a song the TV had refused to play waits as `no-monitor`, not as "tap to play".
    @Test func aStallOfAnotherReasonIsNoMonitorAfterARestart() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        let token = try party.registerMonitor()
        try party.add(1)
        let blocked = try party.client.send("POST", "\(party.base)/track/progress",
                                            json: ["position": 0, "duration": 32000, "paused": true, "blocked": true], auth: token)
        #expect(blocked.status == 204)
        #expect(try party.current()["stallReason"] as? String == "autoplay-blocked")
        first.stop()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let current = try TestPartyHandle(party: party, server: second).current()
        #expect(current["state"] as? String == "stalled" && current["stallReason"] as? String == "no-monitor", "\(current)")
    }

    /// Many writes acknowledged from several threads while the server is killed with SIGKILL part-way: every write
    /// that was answered 200 is there after a restart on the same data folder.
    @Test func everyAcknowledgedWriteSurvivesKill9MidStream() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        // Writers go on until the server is gone (at most `writesPerThread` each, far more than it answers before the
        // kill below: group commit answers hundreds a second), so the kill always comes mid-stream.
        let threads = 4, writesPerThread = 5_000
        // Each write comes from a guest of its own (its own device and address): the limits per guest stay out of the way.
        let acknowledged = Mutex<[(kind: String, number: Int, device: String)]>([])
        let attempted = Mutex<[Int: Int]>([:])
        let group = DispatchGroup()
        let client = party.client, base = party.base
        for thread in 0..<threads {
            group.enter()
            Thread {
                defer { group.leave() }
                for index in 0..<writesPerThread {
                    let guest = client.from("127.\(30 + thread).\(index / 250).\(index % 250 + 1)")
                    let device = "writer-\(thread)-\(index)"
                    // The first five writes of each thread add a song of its own; the rest like one of those songs.
                    let isAdd = index < 5
                    let number = isAdd ? thread * 5 + index + 1 : (index * 7 + thread) % (threads * 5) + 1
                    let path = isAdd ? "/track/addToPlaylist" : "/track/vote"
                    if !isAdd { attempted.withLock { $0[number, default: 0] += 1 } }
                    guard let response = try? guest.send("POST", base + path, json: ["uri": "demo:track:\(number)", "deviceId": device])
                    else { return }
                    guard response.status == 200 else { continue }
                    acknowledged.withLock { $0.append((isAdd ? "add" : "like", number, device)) }
                }
            }.start()
        }
        #expect(eventually { acknowledged.withLock { $0.count } >= 120 }, "writes are acknowledged")
        first.kill()
        group.wait()
        let writes = acknowledged.withLock { $0 }
        #expect(writes.count < threads * writesPerThread, "the kill came mid-stream (\(writes.count) acknowledged)")

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        let queue = try again.queue()
        let likes = Dictionary(queue.compactMap { entry in (entry["uri"] as? String).map { ($0, entry["likeCount"] as? Int ?? -1) } },
                               uniquingKeysWith: { $1 })
        for write in writes where write.kind == "add" {
            #expect(likes["demo:track:\(write.number)"] != nil, "acknowledged add of \(write.number) is queued")
        }
        let acknowledgedLikes = Dictionary(grouping: writes.filter { $0.kind == "like" }, by: \.number)
        for (number, liked) in acknowledgedLikes {
            let count = likes["demo:track:\(number)"] ?? -1
            #expect(count >= liked.count && count <= attempted.withLock { $0[number] ?? 0 },
                    "track \(number): \(count) likes after the restart, \(liked.count) acknowledged")
        }
        for write in writes where write.kind == "like" {
            let seen = try again.queue(device: write.device).first { $0["uri"] as? String == "demo:track:\(write.number)" }
            #expect(seen?["hasVoted"] as? Bool == true, "\(write.device)'s acknowledged like of \(write.number)")
        }
    }

    /// The write-ahead log as the server writes it (a group commit's frames, then one sync): killed with SIGKILL at
    /// random points of like bursts, ten times over, the database is whole after each kill and holds every like that
    /// was answered 200 before it.
    @Test func everyAcknowledgedLikeSurvivesKill9AtRandomPointsOfWriteBursts() throws {
        var server = try ServerProcess()
        let data = server.dataDirectory
        let party = try TestParty(server)
        for number in 1...5 { #expect(try party.add(number, device: "adder-\(number)").status == 200) }
        var random = SplitMix64(state: 0x5EED_0F_CA_5E)
        var acknowledgedPerSong: [Int: Int] = [:]
        var sampled: [(device: String, number: Int)] = []
        for round in 0..<10 {
            let acknowledged = Mutex<[(device: String, number: Int)]>([])
            let group = DispatchGroup()
            let base = party.base, client = server.client
            for thread in 0..<2 {
                group.enter()
                Thread {
                    defer { group.leave() }
                    for index in 0..<100_000 {
                        let device = "burst-\(round)-\(thread)-\(index)"
                        let number = index % 5 + 1
                        let guest = client.from("127.\(60 + round).\(thread * 100 + index / 250 % 100).\(index % 250 + 1)")
                        guard let response = try? guest.send("POST", base + "/track/vote", json: ["uri": "demo:track:\(number)", "deviceId": device])
                        else { return }
                        if response.status == 200 { acknowledged.withLock { $0.append((device, number)) } }
                    }
                }.start()
            }
            Thread.sleep(forTimeInterval: Double.random(in: 0.05...0.4, using: &random))
            server.kill()
            group.wait()
            let integrity = try Self.sqlite(data + "/musicvoting.sqlite", "PRAGMA integrity_check")
            #expect(integrity == "ok", "round \(round): \(integrity)")
            for write in acknowledged.withLock({ $0 }) { acknowledgedPerSong[write.number, default: 0] += 1 }
            if let last = acknowledged.withLock({ $0.last }) { sampled.append(last) }
            server = try ServerProcess(dataDirectory: data)
            let again = TestPartyHandle(party: party, server: server)
            let likes = Dictionary(try again.queue().compactMap { entry in
                (entry["uri"] as? String).map { ($0, entry["likeCount"] as? Int ?? -1) } }, uniquingKeysWith: { $1 })
            for (number, count) in acknowledgedPerSong {
                #expect((likes["demo:track:\(number)"] ?? -1) >= count, "round \(round): song \(number) has \(likes["demo:track:\(number)"] ?? -1) likes, \(count) acknowledged")
            }
            for write in sampled {
                let seen = try again.queue(device: write.device).first { $0["uri"] as? String == "demo:track:\(write.number)" }
                #expect(seen?["hasVoted"] as? Bool == true, "round \(round): the last acknowledged like before a kill, \(write.device)")
            }
        }
        server.stop()
        #expect(acknowledgedPerSong.values.reduce(0, +) > 100, "the bursts were acknowledged: \(acknowledgedPerSong)")
    }

    private static func sqlite(_ path: String, _ statement: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
        process.arguments = [path, statement]
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text.trimmingCharacters(in: .whitespacesAndNewlines)
    }

    @Test func anAcknowledgedWriteSurvivesKill9() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        #expect(try party.add(7).status == 200)
        #expect(try party.vote(7, device: "d").status == 200)
        first.kill()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        let queue = try again.queue()
        #expect(queue.map { $0["uri"] as? String } == ["demo:track:7"])
        #expect(queue.first?["likeCount"] as? Int == 1)
    }
}

/// An existing party, addressed on another server process.
struct TestPartyHandle {
    let party: TestParty
    let server: ServerProcess

    var client: TestClient { TestClient(server: server) }

    /// The queue; throws on anything but a 200 with a queue.
    func queue(device: String? = nil) throws -> [[String: Any]] {
        let response = try client.get("\(party.base)/track/queue" + (device.map { "?deviceId=\($0)" } ?? ""))
        guard response.status == 200, let queue = response.json["queue"] as? [[String: Any]] else {
            throw TestFailure(description: "queue: \(response)")
        }
        return queue
    }

    /// The playback state; throws on anything but a 200 with a JSON object.
    func current() throws -> [String: Any] {
        let response = try client.get("\(party.base)/track/current")
        guard response.status == 200, let object = response.jsonObject else { throw TestFailure(description: "current: \(response)") }
        return object
    }

    func host(_ method: String, _ path: String) throws -> HTTPResponse {
        try client.send(method, party.base + path, auth: party.hostPin)
    }
}

@Suite("Shutdown and logging")
struct ShutdownTests {
    @Test func sigtermClosesEventStreamsAndExitsCleanly() throws {
        let server = try ServerProcess()
        let party = try TestParty(server)
        let stream = try party.events()
        try party.add(1)
        try stream.waitFor("queue-updated")
        server.stop()
        #expect(stream.waitForEnd(timeout: 5), "the stream is closed by the server")
        #expect(server.exitStatus == 0)
        let wal = try FileManager.default.attributesOfItem(atPath: server.dataDirectory + "/musicvoting.sqlite-wal")[.size] as? Int
        #expect(wal == 0, "the database was checkpointed and closed")
    }

    @Test func theAccessLogHasOneLinePerRequestAndNoSecrets() throws {
        let server = try ServerProcess()
        let party = try TestParty(server)
        _ = try party.client.get("/api/party/join/\(party.pin)")
        _ = try party.client.get("/api/party/host-join/\(party.hostPin)")
        let token = try party.registerMonitor()
        _ = try party.client.get(party.base, headers: ["Authorization": "Bearer \(party.hostPin)"])
        server.stop()
        let log = server.errorOutput()
        let access = log.split(separator: "\n").filter { $0.hasPrefix("access ") }
        #expect(access.count == 5, "\(access)")
        #expect(access.contains { $0.hasPrefix("access GET /api/party/join/{pin} 200 ") })
        for secret in [party.pin, party.hostPin, token, party.id] { #expect(!log.contains(secret), "log leaks \(secret)") }
    }
}

@Suite("HTTPS")
struct TLSTests {
    /// SPEC: the monitor needs a secure context for the Spotify SDK, so the server speaks HTTPS itself.
    @Test func theServerAnswersOverHTTPSWithTheGivenCertificate() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-tls-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        try run("/usr/bin/openssl", ["req", "-x509", "-newkey", "rsa:2048", "-nodes", "-keyout", folder + "/key.pem",
                                     "-out", folder + "/cert.pem", "-days", "1", "-subj", "/CN=127.0.0.1"])
        let server = try ServerProcess(arguments: ["--tls-cert", folder + "/cert.pem", "--tls-key", folder + "/key.pem"])
        defer { server.stop() }
        let body = try run("/usr/bin/curl", ["-s", "--cacert", folder + "/cert.pem", "https://127.0.0.1:\(server.port)/healthz"])
        #expect(body == "{\"status\":\"ok\"}")
        let plain = try? server.client.get("/healthz")
        #expect(plain?.status != 200, "plain HTTP is not served on the TLS port")
    }

    @discardableResult
    private func run(_ tool: String, _ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: tool)
        process.arguments = arguments
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }
}
