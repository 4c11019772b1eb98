import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R31: the monitor's presence and the stall clock are the cluster's, and each party's timers run on
/// exactly one instance — the holder of its timer shard's advisory lock — and move when it dies.
@Suite("Several instances share the player", .serialized)
struct SharedPlayerTests {
    /// R21 across instances: the TV's stream and reports go to A; the host asks B whether the TV is there.
    @Test func theTVConnectedToOneInstanceIsActiveOnEveryOther() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let (onA, onB) = (party.via(cluster.instances[0].port), party.via(cluster.instances[1].port))
        #expect(try onB.current()["deviceActive"] as? Bool == false)
        let token = try onA.registerMonitor()
        let monitor = try onA.events(monitorToken: token)
        #expect(try onA.reportProgress(token: token).status == 204)
        #expect(eventually { (try? onB.current())?["deviceActive"] as? Bool == true }, "B sees the TV connected to A")
        #expect(try party.via(cluster.instances[2].port).current()["deviceActive"] as? Bool == true)
        monitor.close()
        #expect(eventually { (try? onB.current())?["deviceActive"] as? Bool == false }, "and sees it leave")
    }

    /// R23 across instances: the TV's progress reaches a stream held by another instance, live and without an id, and
    /// never enters the log: a report takes no sequence number and writes no row.
    @Test func theTVsProgressReachesAnotherInstanceWithoutEnteringTheLog() throws {
        let cluster = try TestCluster(instances: 2)
        let party = try cluster.party()
        try party.add(1)
        let (onA, onB) = (party.via(cluster.instances[0].port), party.via(cluster.instances[1].port))
        let token = try onA.registerMonitor()
        let monitor = try onA.events(monitorToken: token)
        defer { monitor.close() }
        #expect(try onA.reportProgress(token: token).status == 204)
        #expect(try onA.host("POST", "/track/start").status == 200)
        let guest = try onB.events()
        defer { guest.close() }
        let newest = try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")
        #expect(try onA.reportProgress(token: token, positionMs: 4_321).status == 204)
        let progress = try guest.waitFor("progress") { $0.payload["position"] as? String == "4321" }
        #expect(progress.id == nil, "\(progress.raw)")
        #expect(try cluster.sql("SELECT count(*) FROM party_events WHERE party_id = '\(party.id)' AND type = 'progress'") == "0")
        #expect(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'") == newest)
    }

    /// Across instances: a TV replaced through A that keeps calling B is told it was replaced, and its old
    /// token counts as no guess there either.
    @Test func aReplacedTVIsToldSoByEveryInstance() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let old = try party.registerMonitor(device: "tv-old")
        _ = try party.registerMonitor(device: "tv-new")
        let onB = party.via(cluster.instances[1].port)
        for _ in 0..<12 {
            let report = try onB.reportProgress(token: old)
            #expect(report.status == 403 && report.json["code"] as? String == "monitor_replaced", "\(report)")
        }
        #expect(try onB.host("GET", "/blacklist").status == 200, "twelve calls with the old token locked nobody out")
    }

    /// R20a with several instances: the party's stall detection runs on the owner of its shard; kill -9 of that
    /// instance moves it to another, which stalls the song when the TV leaves. The stall is published once.
    @Test func whenThePartysTimerOwnerIsKilledAnotherDetectsItsStall() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        try party.add(1)
        // The shards spread over the three instances (each takes its share as it starts), each held by one.
        #expect(eventually { cluster.timerShards().allSatisfy { ($0?.count ?? 0) > 0 }
                                && Set(cluster.timerShards().compactMap { $0 }.joined()).count == 16 },
                "\(cluster.timerShards())")
        let shard = try cluster.timerShard(of: party.id)
        let ownerIndex = try #require(cluster.timerOwner(of: shard))
        let tvIndex = (ownerIndex + 1) % 3
        let tv = party.via(cluster.instances[tvIndex].port)
        let watcher = try party.via(cluster.instances[(ownerIndex + 2) % 3].port).events()
        defer { watcher.close() }
        let token = try tv.registerMonitor()
        let monitor = try tv.events(monitorToken: token)
        defer { monitor.close() }
        #expect(try tv.reportProgress(token: token).status == 204)
        #expect(try tv.host("POST", "/track/start").status == 200)
        #expect(try tv.current()["state"] as? String == "playing")

        let killedAt = Date()
        cluster.instances[ownerIndex].kill()
        // The TV reports meanwhile, as it does every second: a takeover slower than the silence limit (a busy machine)
        // must not stall the song as monitor-silent first.
        var reported = Date()
        #expect(eventually {
            if Date().timeIntervalSince(reported) >= 1 { _ = try? tv.reportProgress(token: token); reported = Date() }
            return cluster.timerOwner(of: shard) != nil
        }, "a surviving instance takes the shard: \(cluster.timerShards())")
        let takenOver = Date().timeIntervalSince(killedAt)
        #expect(cluster.timerOwner(of: shard) != ownerIndex)
        // The TV says it leaves the instance it is connected to: the new owner stalls the song as no-monitor.
        #expect(try tv.client.send("DELETE", tv.base + "/device", auth: token).status == 204)
        let stalled = try watcher.waitFor("playback-stalled")
        print("timer shard taken over \(Int(takenOver * 1000)) ms after kill -9 of its owner; stall seen \(Int(Date().timeIntervalSince(killedAt) * 1000)) ms after it")
        #expect(stalled.payload["reason"] as? String == "no-monitor", "\(watcher.received.map(\.raw))")
        #expect(try tv.current()["stallReason"] as? String == "no-monitor")
        // Every surviving instance ticks every second: none publishes the stall a second time.
        #expect(!eventually(timeout: 3) { watcher.received.filter { $0.type == "playback-stalled" }.count > 1 },
                "\(watcher.received.map(\.type))")
        #expect(try cluster.sql("SELECT count(*) FROM party_events WHERE party_id = '\(party.id)' AND type = 'playback-stalled'") == "1")
    }
}

extension TestCluster {
    /// The timer shards each live instance holds, by its index (`/healthz`; nil for one that does not answer).
    func timerShards() -> [[Int]?] {
        instances.map { instance in
            guard instance.process.isRunning else { return nil }
            return (try? instance.client.get("/healthz"))?.json["timerShards"] as? [Int]
        }
    }

    /// The party's timer shard: PostgreSQL's `hashtext` of its id, as the instances compute it.
    func timerShard(of partyId: String) throws -> Int {
        guard let shard = Int(try sql("SELECT hashtext('\(partyId)') & 15")) else { throw TestFailure(description: "no shard") }
        return shard
    }

    /// The index of the one live instance that holds `shard`, nil while none or more than one does.
    func timerOwner(of shard: Int) -> Int? {
        let holders = timerShards().enumerated().filter { $0.element?.contains(shard) == true }.map(\.offset)
        return holders.count == 1 ? holders[0] : nil
    }
}
