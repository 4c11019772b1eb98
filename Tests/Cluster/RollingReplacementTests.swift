import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// Three instances behind nginx replaced one after another (SIGTERM, its drain, a new one on its port) during a like
/// storm: no acknowledged like is lost, and every page's stream comes back with `Last-Event-ID` on the instances
/// that remain: no gap, nothing twice.
@Suite("A rolling replacement of three instances behind nginx", .serialized)
struct RollingReplacementTests {
    @Test func noAcknowledgedLikeIsLostAndEveryStreamResumesWithoutGapOrRepeat() throws {
        // Every like comes from a new guest: the new-guest ration per network and party would refuse them, not the
        // instances under test.
        let cluster = try TestCluster(nginx: .partyHash, arguments: ["--max-new-guests-per-network", "0"])
        let nginx = try #require(cluster.nginx)
        let party = try cluster.party()
        let songs = 1...4
        for number in songs { #expect(try party.via(nginx.port).add(number, device: "adder-\(number)").status == 200) }
        let subscribers = (0..<8).map { index in
            ResumingSubscriber(port: nginx.port, path: "/api/spotify/events?partyId=\(party.id)&source=web",
                               source: "127.61.0.\(index + 1)")
        }
        defer { subscribers.forEach { $0.stop() } }
        #expect(eventually { subscribers.allSatisfy { $0.connections >= 1 } }, "every page holds its stream")

        let storm = LikeStorm(port: nginx.port, base: party.base, songs: songs)
        defer { storm.stop() }
        for (step, instance) in cluster.instances.enumerated() {
            let before = storm.acknowledgedCount
            #expect(eventually { storm.acknowledgedCount >= before + 40 }, "step \(step): likes are acknowledged")
            let (drained, replacement) = try cluster.replace(instance)
            #expect(instance.exitStatus == 0, "step \(step): a drain is a clean exit")
            #expect(drained < 10, "step \(step): drained in \(drained) s")
            #expect(eventually { (try? replacement.client.get("/readyz").status) == 200 }, "step \(step): the new instance is ready")
            // The next instance only once nginx sends this one requests again (docs/operations.md): it refused while
            // it was down, and nginx skips it for fail_timeout. Draining the next one sooner could leave nginx none it
            // considers up: 502 to everyone. The party's own requests hash to one instance; other parties' ids,
            // asked through nginx, reach every instance.
            #expect(eventually {
                _ = try? nginx.client.get("/api/party/\(Self.someOtherPartyID())/track/current")
                return Self.requestsAnswered(by: replacement) > 0
            }, "step \(step): nginx sends the new instance requests")
            print("rolling replacement step \(step): drained in \(Int(drained * 1000)) ms")
        }
        let after = storm.acknowledgedCount
        #expect(eventually { storm.acknowledgedCount >= after + 40 }, "likes go on through the new instances")
        storm.stop()

        let acknowledged = storm.acknowledged
        let lost = try Self.lost(acknowledged, cluster: cluster, party: party)
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10).map(\.device))")
        // nginx keeps connections to the instances: a like on one the draining instance still serves is answered.
        #expect(storm.failures.isEmpty, "likes that failed: \(storm.failureSummary)")

        let newest = try #require(Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        #expect(eventually { subscribers.allSatisfy { $0.ids.last == newest } }, "up to \(newest): \(subscribers.map { $0.ids.last ?? -1 })")
        for subscriber in subscribers {
            let ids = subscriber.ids
            #expect(!ids.isEmpty && ids == Array(ids[0]...(ids.last ?? 0)), "no gap, nothing twice: \(ids)")
            #expect(subscriber.failures.isEmpty, "\(subscriber.failures)")
            #expect(subscriber.connections >= 2, "the stream moved at least once")
        }
        print("rolling replacement under a like storm: \(acknowledged.count) likes acknowledged, \(lost.count) lost, "
              + "\(storm.failures.count) failed; "
              + "streams resumed after \(subscribers.flatMap(\.resumeTimes).sorted().map { Int($0 * 1000) }) ms")
    }

    /// The load a party night brings: 300 pages holding streams spread over the three instances (round-robin), and
    /// a like storm. No like fails (each is sent once; any answer but 200, or none, counts), no page's reconnect
    /// fails, no acknowledged like is lost, and every page resumes with `Last-Event-ID`: no gap, nothing twice.
    @Test func threeHundredStreamsAndALikeStormLoseNothingAndNoRequestFails() throws {
        // Every like comes from a new guest: the new-guest budget per network would refuse them, not the replacement.
        let cluster = try TestCluster(nginx: .roundRobin, arguments: ["--max-new-guests-per-network", "0"])
        let nginx = try #require(cluster.nginx)
        let party = try cluster.party()
        let songs = 1...4
        for number in songs { #expect(try party.via(nginx.port).add(number, device: "adder-\(number)").status == 200) }
        let crowd = StreamCrowd(count: 300, port: nginx.port, path: "/api/spotify/events?partyId=\(party.id)&source=web")
        defer { crowd.stop() }
        #expect(eventually(timeout: 30) { crowd.snapshot.allSatisfy { $0.connections >= 1 } }, "every page holds its stream")
        let spread = cluster.instances.map { establishedConnections(port: $0.port) }
        #expect(spread.allSatisfy { $0 >= 80 }, "streams per instance: \(spread)")

        let storm = LikeStorm(port: nginx.port, base: party.base, songs: songs, threads: 4)
        defer { storm.stop() }
        var drainTimes: [TimeInterval] = []
        for (step, instance) in cluster.instances.enumerated() {
            let before = storm.acknowledgedCount
            #expect(eventually { storm.acknowledgedCount >= before + 40 }, "step \(step): likes are acknowledged")
            let (drained, replacement) = try cluster.replace(instance)
            drainTimes.append(drained)
            #expect(instance.exitStatus == 0, "step \(step): a drain is a clean exit")
            #expect(eventually { (try? replacement.client.get("/readyz").status) == 200 }, "step \(step): the new instance is ready")
            // nginx sends a refused instance nothing for fail_timeout (2 s): draining the next one before nginx took
            // this one back would leave it no instance at all ("no live upstreams", 502 to everyone).
            #expect(eventually { Self.likesTaken(by: replacement) > 0 }, "step \(step): nginx sends the new instance likes")
        }
        let after = storm.acknowledgedCount
        #expect(eventually { storm.acknowledgedCount >= after + 40 }, "likes go on through the new instances")
        storm.stop()

        let acknowledged = storm.acknowledged
        let lost = try Self.lost(acknowledged, cluster: cluster, party: party)
        let failed = storm.failures
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10).map(\.device))")
        #expect(failed.isEmpty, "likes that failed: \(failed.prefix(3))")

        let newest = try #require(Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        #expect(eventually(timeout: 30) { crowd.snapshot.allSatisfy { $0.ids.last == newest } }, "every page up to \(newest)")
        let pages = crowd.snapshot
        for (index, page) in pages.enumerated() {
            let ids = page.ids
            let expected = ids.first.map { Array($0...(ids.last ?? $0)) } ?? []
            let differ = zip(ids, expected).enumerated().first { $0.element.0 != $0.element.1 }?.offset ?? min(ids.count, expected.count)
            let missing = Set(expected).subtracting(ids).sorted()
            let missingTypes = missing.isEmpty ? "" : (try? cluster.sql("""
                SELECT seq || ' ' || type FROM party_events WHERE party_id = '\(party.id)' AND seq IN (\(missing.prefix(5).map(String.init).joined(separator: ",")))
                """)) ?? ""
            #expect(!ids.isEmpty && ids == expected,
                    "page \(index): no gap, nothing twice; from the \(differ)th id: \(ids.dropFirst(max(0, differ - 2)).prefix(6)) of \(ids.count), streams began at \(page.streamStarts); missing \(missingTypes)")
            #expect(page.resyncs == 0 && page.failedAttempts.isEmpty, "page \(index): \(page.resyncs) resyncs, \(page.failedAttempts)")
            #expect(page.connections >= 2, "page \(index): the stream moved at least once")
        }
        let resumes = pages.flatMap(\.resumeTimes).sorted()
        let failedReconnects = pages.map(\.failedAttempts.count).reduce(0, +)
        func milliseconds(_ seconds: TimeInterval?) -> Int { Int((seconds ?? -1) * 1000) }
        print("rolling replacement, 300 streams (\(spread) per instance) and a like storm: \(acknowledged.count) likes acknowledged, "
              + "\(lost.count) lost, \(failed.count) failed; \(resumes.count) stream resumes, \(failedReconnects) failed reconnects, "
              + "resume p50 \(milliseconds(resumes.isEmpty ? nil : resumes[resumes.count / 2])) ms, max \(milliseconds(resumes.last)) ms; "
              + "drains \(drainTimes.map { milliseconds($0) }) ms")
    }

    /// `musicvoting_likes_total` of one instance (its /metrics answers clients on the machine itself).
    static func likesTaken(by instance: ServerProcess) -> Int {
        instance.metric("musicvoting_likes_total ") ?? 0
    }

    /// The API requests `instance` answered: those nginx sent it (the test asks it only /readyz and /metrics).
    static func requestsAnswered(by instance: ServerProcess) -> Int {
        instance.metric("musicvoting_http_requests_total{route=\"/api/") ?? 0
    }

    /// A party id no party has: nginx's party hash sends it to any of the instances.
    static func someOtherPartyID() -> String {
        String((0..<16).map { _ in "0123456789abcdef".randomElement()! })
    }

    /// The acknowledged likes the shared database does not hold.
    static func lost(_ acknowledged: [LikeStorm.Like], cluster: TestCluster, party: TestParty) throws -> [LikeStorm.Like] {
        let voters = Set(try cluster.sql("""
            SELECT v.device_id FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'
            """).split(separator: "\n").map(String.init))
        return acknowledged.filter { !voters.contains($0.device) }
    }
}
