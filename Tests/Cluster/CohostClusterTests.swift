import Foundation
import PartyTestSupport
import Synchronization
import Testing

/// R34 with R31: a co-host link made on one instance works on every instance, a revoke on one stops it on all of them
/// from its commit on, the co-host's stream on a third instance hears it, and the limit of 5 live links holds when
/// hosts' phones make links on three instances at once.
@Suite("Co-hosts on several instances", .serialized)
struct CohostClusterTests {
    @Test func aLinkRevokedOnOneInstanceIsRefusedOnEveryOtherAtOnce() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let (onA, onB, onC) = (party.via(cluster.instances[0].port), party.via(cluster.instances[1].port), party.via(cluster.instances[2].port))
        let made = try onA.host("POST", "/cohosts")
        #expect(made.status == 201, "\(made)")
        let token = try #require(made.json["token"] as? String)
        let id = try #require(made.json["id"] as? String)
        let phone = onB.client.from("127.70.0.1")
        #expect(try phone.send("PUT", "\(party.base)/blacklist", json: ["word": "polka"], auth: token).status == 200)
        let joined = try onC.host("GET", "/cohosts").json["cohosts"] as? [[String: Any]]
        #expect(joined?.first?["joinedAt"] is Int, "the join recorded on B is in C's list: \(String(describing: joined))")

        // The co-host's page listens on C, as the balancer may put it.
        let stream = try SSEClient(port: cluster.instances[2].port, path: "/api/spotify/events?partyId=\(party.id)&source=web&hostPin=\(token)",
                                   source: "127.70.0.1")
        defer { stream.close() }
        #expect(stream.status == 200)
        #expect(try onA.host("DELETE", "/cohosts/\(id)").status == 204)
        for view in [onA, onB, onC] {
            let refused = try view.client.from("127.70.0.1").send("GET", "\(party.base)/blacklist", auth: token)
            #expect(refused.status == 403 && refused.json["code"] as? String == "cohost_revoked", "\(refused)")
        }
        let revoked = try stream.waitFor("cohost-revoked")
        #expect(revoked.payload["cohostIds"] as? String == id && revoked.payload["partyId"] as? String == party.id)
        #expect(!revoked.raw.contains(token), "the event names the link by its handle only")
    }

    @Test func fiveLiveLinksAtMostWhenThreeInstancesMakeThemAtOnce() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let statuses = Mutex<[Int: Int]>([:])
        let (ports, base, hostPin, creator) = (cluster.instances.map(\.port), party.base, party.hostPin, party.creatorAddress)
        DispatchQueue.concurrentPerform(iterations: 9) { index in
            let status = (try? HTTPClient(port: ports[index % 3]).from(creator).send("POST", base + "/cohosts", auth: hostPin))?.status ?? 0
            statuses.withLock { $0[status, default: 0] += 1 }
        }
        #expect(statuses.withLock { $0 } == [201: 5, 409: 4])
        #expect((try party.via(ports[1]).host("GET", "/cohosts").json["cohosts"] as? [[String: Any]])?.count == 5)
        let all = try party.via(ports[2]).host("DELETE", "/cohosts")
        #expect(all.json["revoked"] as? Int == 5, "\(all)")
    }
}
