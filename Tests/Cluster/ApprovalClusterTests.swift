import Foundation
import PartyTestSupport
import Testing
import TestSupport

/// R35 and R36 with R31: a song asked for on one instance waits on every instance, is approved on another, and the
/// guest's page, the host's card and the queue on a third see it at once; a nickname set on one instance is the
/// party's on all (the waiting songs and a nickname move the party's version, so no instance answers from a stale
/// cache).
@Suite("R35, R36 on several instances", .serialized)
struct ApprovalClusterTests {
    @Test func aSongAskedForOnOneInstanceIsApprovedOnAnotherAndEntersEverywhere() throws {
        let cluster = try TestCluster()
        let (a, b, c) = (cluster.instances[0], cluster.instances[1], cluster.instances[2])
        let party = try TestParty(a, settings: ["approval": "new-guests"])
        let (onA, onB) = (party, party.via(b.port))
        let onC = party.via(c.port)
        // B and C read (and cache) the guest's queue and the host's list before anything waits.
        #expect(try onB.client.get("\(party.base)/track/queue?deviceId=guest-1").json["pending"] == nil)
        #expect((try onC.host("GET", "/pending").json["items"] as? [Any])?.isEmpty == true)
        let streamA = try onA.events()
        defer { streamA.close() }
        let streamC = try onC.events()
        defer { streamC.close() }

        let added = try onB.add(3, device: "guest-1")
        #expect(added.json["status"] as? String == "pending", "\(added.status) \(added.text)")
        let asked = try streamA.waitFor("pending-updated")
        #expect(asked.payload["reason"] as? String == "added" && asked.payload["count"] as? String == "1")
        let items = try #require(onC.host("GET", "/pending").json["items"] as? [[String: Any]])
        #expect(items.compactMap { $0["uri"] as? String } == ["demo:track:3"], "C's list is not its cached empty one")
        let pendingId = try #require(items.first?["id"] as? String)
        #expect(try onA.add(3, device: "guest-2").status == 409, "R10 among the waiting songs, across instances")

        #expect(try onC.host("POST", "/pending/\(pendingId)/approve").status == 200)
        let approved = try streamA.waitFor("pending-updated", where: { $0.payload["reason"] as? String == "approved" })
        #expect(approved.payload["pendingId"] as? String == pendingId && approved.payload["count"] as? String == "0")
        _ = try streamC.waitFor("queue-updated")
        #expect(try onA.queueUris() == ["demo:track:3"])
        let guestQueue = try onB.client.get("\(party.base)/track/queue?deviceId=guest-1")
        #expect(guestQueue.json["pending"] == nil, "B's read of the guest's queue is not the cached one: \(guestQueue.text)")
        #expect((guestQueue.json["queue"] as? [[String: Any]])?.first?["mine"] as? Bool == true)
        #expect(try onA.add(4, device: "guest-1").json["status"] as? String == "added",
                "approved on C, the guest adds at once on A (new-guests)")
        #expect(try onB.host("POST", "/pending/\(pendingId)/approve").status == 404, "decided once, for every instance")
    }

    @Test func aNicknameSetOnOneInstanceIsThePartysOnEveryInstance() throws {
        let cluster = try TestCluster()
        let (a, b, c) = (cluster.instances[0], cluster.instances[1], cluster.instances[2])
        let party = try TestParty(a, settings: ["nicknames": true])
        let (onB, onC) = (party.via(b.port), party.via(c.port))
        #expect(try party.add(1, device: "guest-1").status == 200)
        #expect(try onC.queue().first?["addedBy"] == nil, "C reads (and caches) the queue before the nickname")
        let set = try onB.client.send("PUT", "\(party.base)/nickname", json: ["deviceId": "guest-1", "nickname": "DJ Anna"])
        #expect(set.status == 200, "\(set.status) \(set.text)")
        #expect(try onC.queue().first?["addedBy"] as? String == "DJ Anna", "C's read is not its cached one")
        let taken = try onC.client.send("PUT", "\(party.base)/nickname", json: ["deviceId": "guest-2", "nickname": "dj anna"])
        #expect(taken.status == 409, "one nickname per party, across instances: \(taken.text)")
        #expect(try onB.host("PUT", "/settings", json: ["nicknames": false]).status == 200)
        #expect(try party.queue().first?["addedBy"] == nil, "off on B hides it on A at once")
    }
}
