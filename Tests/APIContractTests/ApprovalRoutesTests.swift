import Foundation
import PartyTestSupport
import Testing
import TestSupport
@testable import HTTPServer
@testable import MusicVotingServer
@testable import PartyEngine

/// R35: where the host approves songs, guests' adds wait in a list the host approves or declines; approved songs
/// enter by R9 as if added then, on either database.
@Suite("R35 approval mode", .serialized)
struct ApprovalRoutesTests {
    typealias Backend = HostAccessRoutesTests.Backend

    static func pendingItems(_ party: TestParty) throws -> [[String: Any]] {
        let reply = try party.host("GET", "/pending")
        guard reply.status == 200, let items = reply.json["items"] as? [[String: Any]] else { throw TestFailure(description: "pending: \(reply)") }
        return items
    }

    /// The device's own waiting songs as its queue answer carries them.
    static func ownPending(_ party: TestParty, device: String) throws -> [String] {
        let reply = try party.client.get("\(party.base)/track/queue?deviceId=\(device)")
        return (reply.json["pending"] as? [[String: Any]] ?? []).compactMap { $0["uri"] as? String }
    }

    static func waitingUris(_ party: TestParty) throws -> [String] {
        try party.queue().filter { $0["isCurrentlyPlaying"] as? Bool == false }.compactMap { $0["uri"] as? String }
    }

    /// Every event of the party's log, as the streams send them.
    static func events(_ party: TestParty) throws -> [[String: Any]] {
        let service = party.inProcessServer.application.service
        let stream = try service.openEventStream(party: try service.activeParty(id: party.id), clientAddress: "10.9.9.9", caller: nil,
                                                 lastEventId: 0, audience: Audience(source: "web")) { EventStream(initial: $0) }
        defer { stream.finish() }
        var bytes: [UInt8] = []
        var buffer = [CChar](repeating: 0, count: 64 * 1024)
        while stream.pendingByteCount > 0 {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) }
            guard count > 0 else { break }
            bytes += buffer.prefix(count).map { UInt8(bitPattern: $0) }
        }
        return String(decoding: bytes, as: UTF8.self).split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap {
            try? JSONSerialization.jsonObject(with: Data($0.dropFirst(6).utf8)) as? [String: Any]
        }
    }

    /// The scenarios below on one server per database, each with parties of its own (a PostgreSQL server per scenario
    /// held the test cluster's connections).
    @Test(arguments: Backend.allCases)
    func everyApprovalRuleOnEitherDatabase(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        try aGuestsAddWaitsUntilTheHostApprovesItAndEntersAsIfAddedThen(server)
        try newGuestsWaitUntilTheHostApprovedOneOfTheirSongs(server)
        try theRulesOfTheAddApplyAtTheAddAndTheSettingDefaultsToOff(server)
        try aCohostDecidesWaitingSongsTooAndItsOwnAddsNeverWait(server)
        try aBanTakesTheGuestsWaitingSongsAndTheEndTakesThemAll(server)
    }

    func aGuestsAddWaitsUntilTheHostApprovesItAndEntersAsIfAddedThen(_ server: InProcessServer) throws {
        let party = try TestParty(server, settings: ["approval": "all"])
        #expect(try party.client.get("\(party.base)/settings").json["approval"] as? String == "all")
        let added = try party.add(3, device: "guest-1")
        #expect(added.status == 200 && added.json["status"] as? String == "pending", "\(added)")
        let pendingId = try #require((added.json["pendingIds"] as? [String])?.first)
        #expect(try party.queueUris().isEmpty, "a waiting song is not in the queue")
        #expect(try Self.ownPending(party, device: "guest-1") == ["demo:track:3"], "the guest sees its song waiting")
        #expect(try Self.ownPending(party, device: "guest-2").isEmpty && party.client.get("\(party.base)/track/queue").json["pending"] == nil,
                "nobody else sees it")
        let items = try Self.pendingItems(party)
        #expect(items.map { $0["id"] as? String } == [pendingId] && items.first?["name"] is String && items.first?["requestedAt"] is Int)
        #expect(!(try party.host("GET", "/pending").text.contains("guest-1")), "the host approves a song, not a person")
        #expect(try party.add(3, device: "guest-2").isError(409, "Song wartet schon auf Freigabe."), "R10 among the waiting songs")

        // The host's own adds never wait; the approved song then comes after it (added "then", R9).
        server.clock.advance(by: 5)
        let hostAdd = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:4", "deviceId": "host-page"],
                                            auth: party.hostPin)
        #expect(hostAdd.json["status"] as? String == "added", "\(hostAdd)")
        #expect(try party.add(5, device: "guest-1").json["status"] as? String == "pending")
        server.clock.advance(by: 5)
        let approved = try party.host("POST", "/pending/\(pendingId)/approve")
        #expect(approved.status == 200, "\(approved)")
        #expect(try Self.waitingUris(party) == ["demo:track:4", "demo:track:3"], "approved after the host's song: it was added when approved")
        #expect(try Self.ownPending(party, device: "guest-1") == ["demo:track:5"])
        let entry = try #require(try party.entry(3, device: "guest-1"))
        #expect(entry["mine"] as? Bool == true, "the approved song is the guest's (R18a)")
        #expect(try party.host("POST", "/pending/\(pendingId)/approve").isError(404, "Song wartet nicht mehr auf Freigabe."))

        let second = try #require(try Self.pendingItems(party).first?["id"] as? String)
        #expect(try party.host("POST", "/pending/\(second)/decline").status == 200)
        #expect(try Self.pendingItems(party).isEmpty && Self.ownPending(party, device: "guest-1").isEmpty)
        #expect(try !party.queueUris().contains("demo:track:5"), "a declined song never enters")
        #expect(try party.host("POST", "/pending/\(second)/decline").isError(404, "Song wartet nicht mehr auf Freigabe."))

        let types = try Self.events(party).filter { $0["type"] as? String == "pending-updated" }
        let payloads = types.compactMap { $0["payload"] as? [String: Any] }
        #expect(payloads.map { "\($0["reason"] ?? "") \($0["count"] ?? "")" } == ["added 1", "added 2", "approved 1", "declined 0"])
        #expect(payloads.allSatisfy { payload in payload.values.allSatisfy { $0 is String } }, "SSE payloads hold strings only")
        #expect(payloads.first?["pendingId"] as? String == pendingId && payloads.allSatisfy { $0["partyId"] as? String == party.id })
    }

    func newGuestsWaitUntilTheHostApprovedOneOfTheirSongs(_ server: InProcessServer) throws {
        let party = try TestParty(server, settings: ["approval": "new-guests"])
        _ = try party.registerMonitor()
        let first = try #require((try party.add(1, device: "guest-1").json["pendingIds"] as? [String])?.first)
        #expect(try party.currentUri() == nil, "nothing plays while the only song waits for approval")
        #expect(try party.host("POST", "/pending/\(first)/approve").status == 200)
        #expect(try party.currentUri() == "demo:track:1", "an approved song starts an idle party (R16)")
        #expect(try party.add(2, device: "guest-1").json["status"] as? String == "added", "an approved guest adds at once")
        #expect(try party.add(3, device: "guest-2").json["status"] as? String == "pending", "a new guest waits")
    }

    func theRulesOfTheAddApplyAtTheAddAndTheSettingDefaultsToOff(_ server: InProcessServer) throws {
        let party = try TestParty(server)
        #expect(try party.client.get("\(party.base)/settings").json["approval"] as? String == "off", "off unless asked for")
        #expect(try party.add(1).json["status"] as? String == "added")
        #expect(try party.host("PUT", "/settings", json: ["approval": "sometimes"]).isError(400, "approval muss off, new-guests oder all sein."))
        #expect(try party.host("PUT", "/settings", json: ["approval": 1]).status == 400)
        #expect(try party.host("PUT", "/settings", json: ["approval": "all"]).json["approval"] as? String == "all")
        #expect(try party.add(1, device: "guest-2").isError(409, "Song ist schon in der Warteschlange."), "R10 at the add")
        #expect(try party.host("PUT", "/blacklist", json: ["word": "Paper Planes"]).status == 200)
        #expect(try party.add(4, device: "guest-2").isError(403, "Nicht erlaubt."), "R12 at the add")
        for number in [2, 3, 5, 6, 7, 8, 9, 10, 11, 12] { #expect(try party.add(number, device: "guest-3").status == 200) }
        #expect(try party.add(14, device: "guest-3").status == 429, "R11 counts the waiting adds")
        #expect(try Self.pendingItems(party).count == 10)

        // Off again: adds enter at once; what waits stays for the host to decide.
        #expect(try party.host("PUT", "/settings", json: ["approval": "off"]).json["approval"] as? String == "off")
        #expect(try party.add(13, device: "guest-2").json["status"] as? String == "added")
        #expect(try Self.pendingItems(party).count == 10)
        #expect(try party.client.get("\(party.base)/pending").isError(401, "Host-PIN fehlt."))
        #expect(try party.client.send("POST", "\(party.base)/pending/1/approve", auth: "00000").status == 403)
        for bad in ["abc", "-1", "99999999999999999999", "1e3"] {
            #expect(try party.host("POST", "/pending/\(bad)/approve").isError(404, "Song wartet nicht mehr auf Freigabe."), "\(bad)")
        }
    }

    func aCohostDecidesWaitingSongsTooAndItsOwnAddsNeverWait(_ server: InProcessServer) throws {
        let party = try TestParty(server, settings: ["approval": "all"])
        let token = try #require(try party.host("POST", "/cohosts").json["token"] as? String)
        let pendingId = try #require((try party.add(1, device: "guest-1").json["pendingIds"] as? [String])?.first)
        #expect((try party.client.send("GET", "\(party.base)/pending", auth: token).json["items"] as? [Any])?.count == 1)
        #expect(try party.client.send("POST", "\(party.base)/pending/\(pendingId)/approve", auth: token).status == 200)
        let own = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:2", "deviceId": "cohost-phone"],
                                        auth: token)
        #expect(own.json["status"] as? String == "added", "\(own)")
        #expect(try party.client.send("PUT", "\(party.base)/settings", json: ["approval": "off"], auth: token).status == 403,
                "the setting stays the host's (R34)")
    }

    func aBanTakesTheGuestsWaitingSongsAndTheEndTakesThemAll(_ server: InProcessServer) throws {
        let party = try TestParty(server, settings: ["approval": "all"])
        let first = try #require((try party.add(1, device: "guest-1").json["pendingIds"] as? [String])?.first)
        #expect(try party.host("POST", "/pending/\(first)/approve").status == 200)
        #expect(try party.add(2, device: "guest-1").json["status"] as? String == "pending")
        #expect(try party.add(3, device: "guest-2").json["status"] as? String == "pending")
        let entryId = try #require(try party.entry(1)?["id"] as? String)
        #expect(try party.host("POST", "/ban", json: ["entryId": entryId]).status == 200)
        #expect(try Self.pendingItems(party).compactMap { $0["uri"] as? String } == ["demo:track:3"], "R30: the banned guest's waiting song left")
        #expect(try party.host("DELETE", "").status == 204)
        #expect(try party.host("GET", "/pending").status == 404, "R5")
    }
}
