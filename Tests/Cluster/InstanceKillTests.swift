import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// R31: an instance killed with -9 in the middle of a like storm, behind nginx (party hash, a failed
/// upstream retried on the next). No acknowledged like is lost, and every stream it held comes back through nginx
/// on another instance with `Last-Event-ID` and goes on with the next id: no gap, nothing twice.
@Suite("An instance killed with -9 during a like storm", .serialized)
struct InstanceKillTests {
    @Test func noAcknowledgedLikeIsLostAndEveryStreamResumesWithoutGapOrRepeat() throws {
        // Every like comes from a new guest: the new-guest ration per network and party would refuse them, not the
        // instances under test.
        let cluster = try TestCluster(nginx: .partyHash, arguments: ["--max-new-guests-per-network", "0"])
        let nginx = try #require(cluster.nginx)
        let party = try cluster.party()
        let songs = 1...4
        for number in songs { #expect(try party.via(nginx.port).add(number, device: "adder-\(number)").status == 200) }

        // Pages holding streams through nginx, each from an address of its own (the per-address stream limit).
        let subscribers = (0..<8).map { index in
            ResumingSubscriber(port: nginx.port, path: "/api/spotify/events?partyId=\(party.id)&source=web",
                               source: "127.60.0.\(index + 1)")
        }
        defer { subscribers.forEach { $0.stop() } }
        #expect(eventually { subscribers.allSatisfy { $0.connections >= 1 } }, "every page holds its stream")

        let storm = LikeStorm(port: nginx.port, base: party.base, songs: songs)
        defer { storm.stop() }
        // Twice: the instance serving the party dies, the party moves on to another, and that one dies too.
        var heldPorts: [PortHolder] = []
        defer { heldPorts.forEach { $0.release() } }
        for round in 1...2 {
            let before = storm.acknowledgedCount
            #expect(eventually { storm.acknowledgedCount >= before + 40 }, "round \(round): likes are acknowledged: \(storm.failureSummary)")
            let held = cluster.instances.map { establishedConnections(port: $0.port) }
            let owner = cluster.instances[try #require(held.indices.max { held[$0] < held[$1] })]
            print("round \(round): connections held per instance \(held)")
            let killedAt = Date()
            owner.kill()
            // The dead instance's port stays taken (bound, never listening): nginx meets a refused connection there,
            // as after a real crash, and no server another test starts meanwhile can answer in its place.
            heldPorts.append(PortHolder(port: owner.port))
            #expect(eventually { subscribers.allSatisfy { $0.connections >= round + 1 } },
                    "round \(round): every page reconnected: \(subscribers.map(\.connections))")
            print("round \(round): kill -9 of the party's instance; every page's stream resumed within "
                  + "\(Int(Date().timeIntervalSince(killedAt) * 1000)) ms")
            let after = storm.acknowledgedCount
            // nginx learns a dead upstream from the requests it sends there (passive health): on a loaded machine the
            // first likes after the kill may wait their connect timeouts before they go on elsewhere.
            #expect(eventually(timeout: 45) { storm.acknowledgedCount >= after + 40 },
                    "round \(round): likes go on through nginx: \(storm.failureSummary)")
        }
        storm.stop()

        // Every acknowledged like is in the database; none counted that was never attempted.
        let rows = try cluster.sql("""
            SELECT e.uri || ' ' || count(v.device_id) FROM queue_entries e LEFT JOIN votes v ON v.entry_id = e.id
            WHERE e.party_id = '\(party.id)' GROUP BY e.uri
            """)
        let stored = Dictionary(uniqueKeysWithValues: rows.split(separator: "\n").compactMap { line -> (String, Int)? in
            let parts = line.split(separator: " ")
            return parts.count == 2 ? (String(parts[0]), Int(parts[1]) ?? -1) : nil
        })
        let voters = Set(try cluster.sql("""
            SELECT v.device_id FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'
            """).split(separator: "\n").map(String.init))
        let (acknowledged, attempted) = (storm.acknowledged, storm.attempted)
        for number in songs {
            let uri = "demo:track:\(number)"
            let acknowledgedHere = acknowledged.filter { $0.number == number }.count
            #expect(stored[uri] ?? -1 >= acknowledgedHere && stored[uri] ?? Int.max <= attempted[number] ?? 0,
                    "\(uri): \(stored[uri] ?? -1) stored, \(acknowledgedHere) acknowledged, \(attempted[number] ?? 0) attempted")
        }
        let lost = acknowledged.filter { !voters.contains($0.device) }
        #expect(lost.isEmpty, "acknowledged and lost: \(lost.prefix(10).map(\.device))")

        // Every page caught up with the log, each id once and in order across its reconnects.
        let newest = try #require(Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        #expect(eventually { subscribers.allSatisfy { $0.ids.last == newest } }, "up to \(newest): \(subscribers.map { $0.ids.last ?? -1 })")
        for subscriber in subscribers {
            let ids = subscriber.ids
            #expect(!ids.isEmpty && ids == Array(ids[0]...(ids.last ?? 0)), "no gap, nothing twice: \(ids)")
            #expect(subscriber.failures.isEmpty, "\(subscriber.failures)")
        }
        let resumes = subscribers.flatMap(\.resumeTimes).sorted()
        print("like storm through nginx: \(acknowledged.count) likes acknowledged of \(attempted.values.reduce(0, +)) attempted, "
              + "\(lost.count) lost; streams resumed after \(resumes.map { Int($0 * 1000) }) ms")
    }
}

/// R31: correctness does not depend on affinity. With plain round-robin the likes of one party
/// commit on all three instances and each page's stream sits on any of them: every stream still gets every event
/// once, in order (its ids go up by exactly one).
@Suite("A like storm through nginx with round-robin", .serialized)
struct RoundRobinStormTests {
    @Test func everyStreamGetsEveryEventOnceInOrder() throws {
        // Every like comes from a new guest: the new-guest ration per network and party would refuse them, not the
        // instances under test.
        let cluster = try TestCluster(nginx: .roundRobin, arguments: ["--max-new-guests-per-network", "0"])
        let nginx = try #require(cluster.nginx)
        let party = try cluster.party()
        let songs = 1...4
        for number in songs { #expect(try party.add(number, device: "adder-\(number)").status == 200) }
        let subscribers = (0..<9).map { index in
            ResumingSubscriber(port: nginx.port, path: "/api/spotify/events?partyId=\(party.id)&source=web",
                               source: "127.62.0.\(index + 1)")
        }
        defer { subscribers.forEach { $0.stop() } }
        #expect(eventually { subscribers.allSatisfy { $0.connections >= 1 } }, "every page holds its stream")
        // Round-robin put the streams on all three instances.
        #expect(cluster.instances.allSatisfy { establishedConnections(port: $0.port) >= 1 },
                "\(cluster.instances.map { establishedConnections(port: $0.port) })")

        let storm = LikeStorm(port: nginx.port, base: party.base, songs: songs)
        defer { storm.stop() }
        #expect(eventually { storm.acknowledgedCount >= 300 }, "likes are acknowledged on every instance")
        storm.stop()

        let newest = try #require(Int(try cluster.sql("SELECT last_event_seq FROM parties WHERE id = '\(party.id)'")))
        #expect(eventually { subscribers.allSatisfy { $0.ids.last == newest } }, "up to \(newest): \(subscribers.map { $0.ids.last ?? -1 })")
        for subscriber in subscribers {
            let ids = subscriber.ids
            #expect(!ids.isEmpty && ids == Array(ids[0]...(ids.last ?? 0)), "in order, each once, no gap: \(ids)")
            #expect(subscriber.connections == 1 && subscriber.failures.isEmpty, "\(subscriber.connections) \(subscriber.failures)")
        }
        let voters = Int(try cluster.sql("""
            SELECT count(*) FROM votes v JOIN queue_entries e ON e.id = v.entry_id WHERE e.party_id = '\(party.id)'
            """)) ?? -1
        #expect(voters >= storm.acknowledgedCount)
        // nginx keeps its connections to the instances: each like comes on a new connection to nginx, but the
        // instances accept far fewer (the streams', the test's own reads, and what nginx keeps).
        let accepted = cluster.instances.map { Self.acceptedConnections(of: $0) }
        let likes = storm.acknowledgedCount + storm.failures.count
        #expect(accepted.reduce(0, +) * 4 < likes, "connections accepted per instance \(accepted) for \(likes) likes")
        print("round-robin storm: \(storm.acknowledgedCount) likes over 3 instances, \(newest) events, 9 streams in order; "
              + "connections accepted \(accepted)")
    }

    /// `musicvoting_http_connections_accepted_total` of one instance.
    static func acceptedConnections(of instance: ServerProcess) -> Int {
        instance.metric("musicvoting_http_connections_accepted_total ") ?? -1
    }
}

/// TCP connections established to 127.0.0.1:`port` on the server's side (`/proc/net/tcp`): behind nginx with the
/// party hash, the instance serving the party holds its streams.
func establishedConnections(port: UInt16) -> Int {
    // Read to the end by hand: /proc files say they are empty, and a read sized by that stops after a page.
    guard let file = FileHandle(forReadingAtPath: "/proc/net/tcp") else { return 0 }
    defer { try? file.close() }
    let table = String(decoding: file.readDataToEndOfFile(), as: UTF8.self)
    let local = String(format: "0100007F:%04X", port)
    return table.split(separator: "\n").dropFirst().filter { line in
        let fields = line.split(separator: " ")
        return fields.count > 3 && fields[1] == local && fields[3] == "01"
    }.count
}

/// A loopback port bound and never listened on: connecting to it is refused, and nobody else can take it.
final class PortHolder {
    private var descriptor: Int32

    init(port: UInt16) {
        descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        // The killed instance's connections may linger in TIME_WAIT on the port.
        var one: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
    }

    func release() {
        if descriptor >= 0 { close(descriptor) }
        descriptor = -1
    }

    deinit { release() }
}
