import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R17a and R30 against the real binary: the events a veto sends, the skip every screen sees, a ban that outlives
/// a restart.
@Suite("R17a crowd veto and R30 ban, end to end", .alsoOnRoundRobinCluster)
struct CrowdEndToEndTests {
    private static func veto(_ party: TestParty, _ number: Int, device: String, client: TestClient? = nil) throws -> HTTPResponse {
        try (client ?? party.client).send("POST", "\(party.base)/track/veto", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    @Test func theOtherGuestsVetoTheCurrentSongAndEveryStreamSeesTheSkip() throws {
        let party = try TestParty.given(.live, settings: ["fairQueue": true, "vetoShare": 0.4])
        _ = try party.registerMonitor()
        try party.add(1, device: "host-phone")
        #expect(try eventually { (try party.current()["track"] as? [String: Any])?["uri"] as? String == "demo:track:1" })
        try party.add(2, device: "A")
        try party.add(3, device: "B")
        let events = try party.events()
        // Three active guests, song 1 is the host phone's: its two voters are A and B, and both are needed.
        let first = try Self.veto(party, 1, device: "A")
        #expect(first.status == 200 && first.json["vetoCount"] as? Int == 1 && first.json["vetoNeeded"] as? Int == 2, "\(first.text)")
        let told = try events.waitFor("veto-updated") { $0.payload["vetoCount"] as? String == "1" }
        #expect(told.payload["uri"] as? String == "demo:track:1" && told.payload["vetoNeeded"] as? String == "2", "all strings: \(told.raw)")
        #expect(told.id != nil, "logged, so a stream that resumes replays it")
        #expect((try party.current()["track"] as? [String: Any])?["uri"] as? String == "demo:track:1", "one short: it plays on")
        #expect(try Self.veto(party, 1, device: "B").status == 200)
        let changed = try events.waitFor("track-changed") { $0.payload["uri"] as? String == "demo:track:2" }
        #expect(changed.payload["isPlaying"] as? String == "true", "the next song plays, as after a host next")
        let queue = try party.queue()
        #expect(!queue.contains { $0["uri"] as? String == "demo:track:1" }, "the skipped song left the queue (R14)")
        #expect(queue.first?["uri"] as? String == "demo:track:2" && queue.first?["isCurrentlyPlaying"] as? Bool == true)
    }

    @Test func theHostTurnsTheVetoOnLiveAndEveryPageIsTold() throws {
        let party = try TestParty.given()
        for (number, device) in [(1, "A"), (2, "B"), (3, "C")] { try party.add(number, device: device) }
        let events = try party.events()
        #expect(try party.host("PUT", "/settings", json: ["vetoShare": 0.4]).status == 200)
        _ = try events.waitFor("queue-updated") { $0.payload["reason"] as? String == "settings" }
        #expect(try party.queue().first?["vetoNeeded"] as? Int == 2, "the queue now carries the veto's threshold")
        #expect(try Self.veto(party, 1, device: "B").status == 200)
    }

    @Test func aBanHoldsAfterARestartAndForTheSameDeviceInANewTab() throws {
        let first = try ServerProcess()
        let party = try TestParty(first, settings: ["vetoShare": 0.4])
        _ = try party.registerMonitor()
        try party.add(1, device: "host-phone")
        try party.add(2, device: "troll")
        try party.add(3, device: "troll")
        try party.add(4, device: "friend")
        let entryId = try #require(party.queue().first { $0["uri"] as? String == "demo:track:2" }?["id"] as? String)
        let banned = try party.host("POST", "/ban", json: ["entryId": entryId])
        #expect(banned.status == 200 && banned.json["removed"] as? Int == 2, "\(banned.text)")
        first.stop()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        let uris = try again.queue().compactMap { $0["uri"] as? String }
        #expect(!uris.contains("demo:track:2") && !uris.contains("demo:track:3") && uris.contains("demo:track:4"))
        // A new tab of the same browser sends the same deviceId (localStorage); it is still refused.
        let add = try again.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:5", "deviceId": "troll"])
        #expect(add.status == 403 && add.error == "Nicht erlaubt.", "\(add.text)")
        let like = try again.client.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:4", "deviceId": "troll"])
        #expect(like.status == 403 && like.error == "Nicht erlaubt.")
        let veto = try Self.veto(party, 4, device: "troll", client: again.client)
        #expect(veto.status == 403 && veto.error == "Nicht erlaubt.")
        #expect(try again.host("DELETE", "/bans").status == 200)
        let lifted = try again.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:5", "deviceId": "troll"])
        #expect(lifted.status == 200, "\(lifted.text)")
    }
}
