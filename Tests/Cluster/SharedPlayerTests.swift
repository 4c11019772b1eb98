import Foundation
import Testing

/// Issue 26, item 4: the monitor's presence and the stall clock are the cluster's, and each party's timers run on
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

    /// Issue 24 across instances: a TV replaced through A that keeps calling B is told it was replaced, and its old
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
        // The shards spread over the three instances (each takes its share as it starts).
        #expect(eventually { (try? cluster.timerShardHolders().count) == 3 }, "\(String(describing: try? cluster.timerShardHolders()))")
        let owner = try #require(try cluster.timerOwner(of: party.id))
        let ownerIndex = try #require(cluster.instances.firstIndex { $0.process.processIdentifier == owner })
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
        #expect(eventually { (try? cluster.timerOwner(of: party.id)).flatMap { $0 } != nil }, "a surviving instance takes the shard")
        let takenOver = Date().timeIntervalSince(killedAt)
        let newOwner = try cluster.timerOwner(of: party.id)
        #expect(newOwner != owner)
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
    /// `TimerShards.lockClass`: "mvtm" in ASCII.
    static let timerLockClass = 0x6d76_746d

    /// The process ids of the instances holding timer shards, with how many each holds.
    func timerShardHolders() throws -> [Int32: Int] {
        let rows = try sql("""
            SELECT a.application_name, count(*) FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = \(Self.timerLockClass) AND l.objsubid = 2
            GROUP BY a.application_name
            """)
        var holders: [Int32: Int] = [:]
        for row in rows.split(separator: "\n") {
            let fields = row.split(separator: "|")
            guard fields.count == 2, let pid = fields[0].split(separator: "-").last.flatMap({ Int32($0) }) else { continue }
            holders[pid] = Int(fields[1])
        }
        return holders
    }

    /// The process id of the instance running the party's timers (its shard is PostgreSQL's `hashtext` of the id).
    func timerOwner(of partyId: String) throws -> Int32? {
        let name = try sql("""
            SELECT a.application_name FROM pg_locks l JOIN pg_stat_activity a ON a.pid = l.pid
            WHERE l.locktype = 'advisory' AND l.granted AND l.classid::bigint = \(Self.timerLockClass) AND l.objsubid = 2
            AND l.objid::bigint = (hashtext('\(partyId)') & 15)
            """)
        return name.split(separator: "-").last.flatMap { Int32($0) }
    }
}
