import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// SPEC R31: three instances of the real binary share one PostgreSQL; an event committed on one reaches the
/// streams on every other, reads never miss another instance's acknowledged write, and the upkeep runs on one.
@Suite("Several instances on one PostgreSQL", .serialized)
struct ClusterTests {
    @Test func aLikeOnOneInstanceReachesAStreamHeldByAnotherWithTheSameId() throws {
        let cluster = try TestCluster()
        let (a, b, c) = (cluster.instances[0], cluster.instances[1], cluster.instances[2])
        let party = try cluster.party()
        #expect(try party.add(1).status == 200)
        #expect(try party.add(2).status == 200)
        // B reads (and caches) the queue before A's like: its next read must not be the cached one.
        #expect(try party.via(b.port).likeCount(2) == 0)

        let onB = try party.via(b.port).events()
        defer { onB.close() }
        let onA = try party.events()
        defer { onA.close() }
        let likedAt = Date()
        #expect(try party.vote(2, device: "guest-2").status == 200)
        let heardOnB = try onB.waitFor("vote-updated")
        print("like on A → its event on B's stream: \(Int(Date().timeIntervalSince(likedAt) * 1000)) ms (HTTP round trip included)")
        let heardOnA = try onA.waitFor("vote-updated")
        #expect(heardOnB.id != nil && heardOnB.id == heardOnA.id, "the SSE id is the party's sequence number on every instance")
        #expect(heardOnB.payload["likeCount"] as? String == "1")
        #expect(try party.via(b.port).likeCount(2) == 1, "B's read after A acknowledged the like sees it")

        // Writes on all three at once: each stream gets every logged event once, in sequence order, without gaps.
        let (ports, base) = ([a.port, b.port, c.port], party.base)
        DispatchQueue.concurrentPerform(iterations: 12) { index in
            _ = try? HTTPClient(port: ports[index % 3]).send("POST", base + "/track/vote",
                                                             json: ["uri": "demo:track:1", "deviceId": "burst-\(index)"])
        }
        #expect(try party.likeCount(1) == 12)
        let newest = Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")) ?? -1
        for stream in [onA, onB] {
            #expect(eventually { stream.received.compactMap(\.id).last == newest }, "up to \(newest): \(stream.received.compactMap(\.id))")
            let ids = stream.received.compactMap(\.id)
            #expect(ids == Array((ids.first ?? 0)...(ids.last ?? 0)), "in order, each once, no gap: \(ids)")
        }
    }

    @Test func aStreamWhoseDoorbellSessionWasCutStillGetsEveryEvent() throws {
        let cluster = try TestCluster(instances: 2)
        let (a, b) = (cluster.instances[0], cluster.instances[1])
        let party = try cluster.party()
        try party.add(1)
        let onB = try party.via(b.port).events()
        defer { onB.close() }
        #expect(eventually { (try? cluster.terminateDoorbell(of: b)) == 1 }, "B's doorbell session is there to cut")
        // Rung while B's listener is gone: the NOTIFY is lost for B; reading again after it reconnects (or the poll)
        // brings the event.
        #expect(try party.via(a.port).vote(1, device: "guest-1").status == 200)
        let heard = try onB.waitFor("vote-updated")
        #expect(heard.id == Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        // And B listens again: the next like arrives too, once.
        #expect(eventually { (try? cluster.sql("SELECT count(*) FROM pg_stat_activity WHERE application_name = 'musicvoting-doorbell-\(b.process.processIdentifier)'")) == "1" })
        #expect(try party.via(a.port).vote(1, device: "guest-2").status == 200)
        #expect(eventually { onB.received.filter { $0.type == "vote-updated" }.count == 2 })
        let ids = onB.received.compactMap(\.id)
        #expect(Set(ids).count == ids.count, "no event twice: \(ids)")
    }

    @Test(arguments: [NginxProcess.Balancing.roundRobin, .partyHash])
    func aPartyRunsThroughNginx(_ balancing: NginxProcess.Balancing) throws {
        let cluster = try TestCluster(nginx: balancing)
        let nginx = try #require(cluster.nginx)
        let created = try nginx.client.send("POST", "/api/party", json: ["provider": "demo"])
        #expect(created.status == 201, "\(created)")
        let party = TestParty(server: cluster.instances[0], client: nginx.client, id: created.json["id"] as? String ?? "",
                              pin: created.json["pin"] as? String ?? "", hostPin: created.json["hostPin"] as? String ?? "",
                              joinUrl: created.json["joinUrl"] as? String ?? "", creatorAddress: "127.0.0.1")
        #expect(try nginx.client.get("/api/party/join/\(party.pin)").json["id"] as? String == party.id)
        let stream = try party.events()
        defer { stream.close() }
        for number in 1...3 { #expect(try party.add(number).status == 200) }
        #expect(try party.vote(3, device: "guest-2").status == 200)
        #expect(try party.queueUris().prefix(3) == ["demo:track:3", "demo:track:1", "demo:track:2"], "R9 on whichever instance answers")
        // The TV's presence is not shared yet : it reports to each instance once.
        let token = try party.registerMonitor()
        for _ in 0..<3 { #expect(try party.reportProgress(token: token).status == 204) }
        #expect(try party.host("POST", "/track/start").status == 200)
        #expect(try party.host("POST", "/track/next").status == 200)
        #expect(try party.queueUris().prefix(2) == ["demo:track:1", "demo:track:2"], "the liked song played and left the queue")
        #expect(try party.vote(1, device: "guest-3").status == 200)
        #expect(try party.likeCount(1) == 1)
        _ = try stream.waitFor("track-changed")
        let ids = stream.received.compactMap(\.id)
        #expect(ids == Array((ids.first ?? 0)...(ids.last ?? 0)), "one stream through nginx: in order, no gap: \(ids)")
    }

    @Test func twoInstancesWritingOnePartyAtOnceLoseNoUpdate() throws {
        let cluster = try TestCluster(instances: 2)
        let (a, b) = (cluster.instances[0], cluster.instances[1])
        let party = try cluster.party()
        try party.add(1)
        let failures = Mutex<[String]>([])
        // 20 likes and 8 adds, half through each instance, all at once.
        let (ports, base) = ([a.port, b.port], party.base)
        DispatchQueue.concurrentPerform(iterations: 28) { index in
            let client = HTTPClient(port: ports[index % 2])
            let response = index < 20
                ? try? client.send("POST", base + "/track/vote", json: ["uri": "demo:track:1", "deviceId": "liker-\(index)"])
                : try? client.send("POST", base + "/track/addToPlaylist", json: ["uri": "demo:track:\(index - 18)", "deviceId": "adder-\(index)"])
            if response?.status != 200 { failures.withLock { $0.append("\(index): \(response.map(String.init(describing:)) ?? "no answer")") } }
        }
        #expect(failures.withLock { $0 }.isEmpty)
        for instance in [a, b] {
            let view = party.via(instance.port)
            #expect(try view.likeCount(1) == 20)
            #expect(Set(try view.queueUris()).isSuperset(of: (2...9).map { "demo:track:\($0)" }))
        }
        #expect(try cluster.sql("SELECT count(*) FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'") == "20")

        // Two skips at once through two instances are two songs (a read-modify-write of the playback each).
        let token = try party.registerMonitor()
        for instance in [a, b] { #expect(try party.via(instance.port).reportProgress(token: token).status == 204) }
        #expect(try party.host("POST", "/track/start").status == 200)
        let before = try party.queueUris()
        let skips = Mutex<[Int]>([])
        let hostPin = party.hostPin
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            let status = (try? HTTPClient(port: ports[index]).send("POST", base + "/track/next", auth: hostPin))?.status ?? 0
            skips.withLock { $0.append(status) }
        }
        #expect(skips.withLock { $0 } == [200, 200])
        let after = try party.queueUris()
        #expect(after.first == before[2], "the third song plays: \(before) → \(after)")

        // The TV's song end reaches both instances at once (a retry through another one): one advance, not two.
        let current = "\(try #require(try party.queue().first?["id"]))"
        DispatchQueue.concurrentPerform(iterations: 2) { index in
            _ = try? HTTPClient(port: ports[index]).send("POST", base + "/track/next", json: ["entryId": current], auth: token)
        }
        let ended = try party.queueUris()
        #expect(ended.first == before[3], "the fourth song plays: \(after) → \(ended)")
    }

    /// NOTIFY serializes notifying commits cluster-wide: a storm of likes rings a doorbell at most every 20 ms per
    /// instance, never one per like. Counted by a psql session that listens through the storm.
    @Test func aLikeStormRingsCoalescedDoorbells() throws {
        let cluster = try TestCluster(instances: 2)
        let party = try cluster.party()
        for number in 1...4 { try party.add(number) }
        let listener = Process()
        listener.executableURL = URL(fileURLWithPath: "/usr/bin/psql")
        // Two commands: in one, LISTEN would take effect only when the sleep's transaction commits.
        listener.arguments = ["-X", "-q", cluster.database, "-c", "LISTEN musicvoting_events", "-c", "SELECT pg_sleep(6)"]
        let output = Pipe()
        listener.standardOutput = output
        listener.standardError = output
        try listener.run()
        defer { if listener.isRunning { listener.terminate() } }
        #expect(eventually { (try? cluster.sql("SELECT count(*) FROM pg_stat_activity WHERE query = 'SELECT pg_sleep(6)' AND datname = current_database()")) == "1" })
        let (ports, base) = (cluster.instances.map(\.port), party.base)
        let likes = 80
        let started = Date()
        // From four addresses: an address may like 60 times a minute, counted over both instances.
        DispatchQueue.concurrentPerform(iterations: likes) { index in
            _ = try? HTTPClient(port: ports[index % 2]).from("127.66.\(index % 4).1").send("POST", base + "/track/vote",
                                                             json: ["uri": "demo:track:\(index % 4 + 1)", "deviceId": "storm-\(index)"])
        }
        let stormTook = Date().timeIntervalSince(started)
        #expect(try (1...4).map { try party.likeCount($0) ?? 0 }.reduce(0, +) == likes)
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        listener.waitUntilExit()
        // psql prints each notification's payload as it is, line breaks included.
        let notifications = text.components(separatedBy: "Asynchronous notification").dropFirst().filter { $0.contains(party.id) }
        let rings = notifications.count
        let carried = notifications.filter { $0.contains("\t\(party.id) ") && $0.contains(#"{"type":"vote-updated""#) }.count
        print("like storm: \(likes) likes over 2 instances in \(Int(stormTook * 1000)) ms rang \(rings) doorbells, \(carried) with their commits")
        #expect(rings >= 1, "\(text.prefix(1500))")
        // At most one ring every 20 ms per instance, the ones commits carry and the ones after commits together (and
        // each instance's last, up to 20 ms after the storm's last answer).
        #expect(rings <= 2 * (Int(stormTook / 0.02) + 2), "\(rings) rings in \(Int(stormTook * 1000)) ms")
        #expect(carried >= 1, "a commit carried its events: \(text.prefix(1500))")
    }

    /// The like's commit rings the other instance with its event (its last ring is older than 20 ms): B sends the
    /// event on as A's stream got it, without reading the party's log.
    @Test func aCommitCarriesItsEventsToTheOtherInstances() throws {
        let cluster = try TestCluster(instances: 2)
        let b = cluster.instances[1]
        let party = try cluster.party()
        try party.add(1)
        let onA = try party.events()
        defer { onA.close() }
        let onB = try party.via(b.port).events()
        defer { onB.close() }
        let logReads = { b.metric("musicvoting_doorbell_log_reads_total") ?? 0 }
        // The party's first stream on B: its log is read once (an event rung before B followed the party).
        #expect(eventually { logReads() == 1 }, "\(logReads())")
        let readsBefore = logReads()
        for guest in 1...5 {
            #expect(try party.vote(1, device: "guest-\(guest)").status == 200)
            let likes = { (event: ReceivedEvent) in event.payload["likeCount"] as? String == "\(guest)" }
            let heardOnB = try onB.waitFor("vote-updated", where: likes)
            let heardOnA = try onA.waitFor("vote-updated", where: likes)
            #expect(heardOnB.id != nil && heardOnB.id == heardOnA.id && heardOnB.raw == heardOnA.raw, "\(heardOnB.raw) \(heardOnA.raw)")
            Thread.sleep(forTimeInterval: 0.05)
        }
        // B's poll (every 2 s) may read the log once, when it runs between a commit and B hearing it.
        #expect(logReads() - readsBefore <= 1, "B read the log \(logReads() - readsBefore) times for 5 carried events")
        let ids = onB.received.compactMap(\.id)
        #expect(Set(ids).count == ids.count && ids == ids.sorted(), "each once, in order: \(ids)")
    }

    @Test func anEventNoInstanceRangForReachesTheStreamsByThePoll() throws {
        let cluster = try TestCluster(instances: 2)
        let party = try cluster.party()
        try party.add(1)
        let onB = try party.via(cluster.instances[1].port).events()
        defer { onB.close() }
        // Written straight into the log, as by an instance that died between its commit and its doorbell: no NOTIFY
        // ever comes; B's poll finds the party's log moved on.
        let message = #"{"type":"queue-updated","timestamp":0,"payload":{"partyId":"\#(party.id)","source":"server","reason":"add"}}"#
        let sequence = try cluster.sql("""
            WITH next AS (UPDATE parties SET last_event_seq = last_event_seq + 1 WHERE id = '\(party.id)' RETURNING last_event_seq)
            INSERT INTO party_events (party_id, seq, type, message, created_at)
            SELECT '\(party.id)', last_event_seq, 'queue-updated', '\(message)', extract(epoch from now()) FROM next RETURNING seq
            """)
        let heard = try onB.waitFor("queue-updated")
        #expect(heard.id.map(String.init) == sequence && heard.raw == message, "\(heard.raw) \(sequence)")
    }

    @Test func whenTheUpkeepOwnerIsKilledAnotherInstanceTakesOver() throws {
        let cluster = try TestCluster()
        #expect(eventually { cluster.upkeepOwners().filter { $0 == true }.count == 1 }, "exactly one runs it: \(cluster.upkeepOwners())")
        let owner = try #require(cluster.upkeepOwners().firstIndex { $0 == true })
        let killedAt = Date()
        cluster.instances[owner].kill()
        #expect(eventually { cluster.upkeepOwners().filter { $0 == true }.count == 1 }, "one of the others took over: \(cluster.upkeepOwners())")
        print("upkeep taken over \(Int(Date().timeIntervalSince(killedAt) * 1000)) ms after kill -9 of its owner")
        #expect(cluster.upkeepOwners()[owner] == nil)
    }

    @Test func aTVThatReportsToAnotherInstanceResumesItsStalledSong() throws {
        let cluster = try TestCluster(instances: 2)
        let (a, b) = (cluster.instances[0], cluster.instances[1])
        let party = try cluster.party()
        try party.add(1)
        let token = try party.registerMonitor()
        let monitorOnA = try party.events(monitorToken: token)
        #expect(try party.reportProgress(token: token).status == 204)
        #expect(try party.host("POST", "/track/start").status == 200)
        // The TV goes from A (its stream ends): A stalls the song as no-monitor.
        monitorOnA.close()
        #expect(eventually { (try? party.current())?["stallReason"] as? String == "no-monitor" }, "\(String(describing: try? party.current()))")
        // It comes back on B, which never saw the song start: its audible report resumes it there.
        let onB = party.via(b.port)
        let monitorOnB = try onB.events(monitorToken: token)
        defer { monitorOnB.close() }
        #expect(eventually { (try? onB.reportProgress(token: token, positionMs: 2_000))?.status == 204
                                && (try? onB.current())?["state"] as? String == "playing" },
                "\(String(describing: try? onB.current()))")
        #expect(try party.via(a.port).current()["state"] as? String == "playing", "A reads the same")
    }
}
