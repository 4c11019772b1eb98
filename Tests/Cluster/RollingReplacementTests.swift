import Foundation
import Synchronization
import Testing
import TestSupport

/// Three instances behind nginx replaced one after another (SIGTERM, its drain, a new one on its port) during a like
/// storm: no acknowledged like is lost, and every page's stream comes back with `Last-Event-ID` on the instances
/// that remain: no gap, nothing twice.
@Suite("A rolling replacement of three instances behind nginx", .serialized)
struct RollingReplacementTests {
    @Test func noAcknowledgedLikeIsLostAndEveryStreamResumesWithoutGapOrRepeat() throws {
        let cluster = try TestCluster(nginx: .partyHash)
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
            print("rolling replacement step \(step): drained in \(Int(drained * 1000)) ms")
        }
        let after = storm.acknowledgedCount
        #expect(eventually { storm.acknowledgedCount >= after + 40 }, "likes go on through the new instances")
        storm.stop()

        let voters = Set(try cluster.sql("""
            SELECT v.device_id FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'
            """).split(separator: "\n").map(String.init))
        let acknowledged = storm.acknowledged
        let lost = acknowledged.filter { !voters.contains($0.device) }
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10).map(\.device))")

        let newest = try #require(Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        #expect(eventually { subscribers.allSatisfy { $0.ids.last == newest } }, "up to \(newest): \(subscribers.map { $0.ids.last ?? -1 })")
        for subscriber in subscribers {
            let ids = subscriber.ids
            #expect(!ids.isEmpty && ids == Array(ids[0]...(ids.last ?? 0)), "no gap, nothing twice: \(ids)")
            #expect(subscriber.failures.isEmpty, "\(subscriber.failures)")
            #expect(subscriber.connections >= 2, "the stream moved at least once")
        }
        print("rolling replacement under a like storm: \(acknowledged.count) likes acknowledged, \(lost.count) lost; "
              + "streams resumed after \(subscribers.flatMap(\.resumeTimes).sorted().map { Int($0 * 1000) }) ms")
    }
}
