import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// The waiting guest songs' track numbers, in the server's order (the playing and auto-filled entries left out).
private func waitingGuestSongs(_ queue: [[String: Any]]) -> [Int] {
    queue.filter { $0["isCurrentlyPlaying"] as? Bool != true && $0["autofilled"] as? Bool != true }
        .compactMap { ($0["uri"] as? String)?.split(separator: ":").last.flatMap { Int($0) } }
}

/// R9b's order and the party settings' answers; a live change seen by every instance and the counter across a
/// restart are `EndToEndTests/FairOrderTests`.
@Suite("R9b fair order and the party settings")
struct FairOrderRoutesTests {
    @Test func aPartyCreatedWithoutSettingsKeepsR9Exactly() throws {
        let party = try TestParty.given()
        let settings = try party.client.get("\(party.base)/settings")
        #expect(settings.status == 200 && settings.json["fairQueue"] as? Bool == false && settings.json["vetoShare"] as? Double == 0)
        for number in 1...5 { try party.add(number, device: "A") }
        try party.add(6, device: "B")
        try party.add(7, device: "C")
        #expect(waitingGuestSongs(try party.queue()) == [1, 2, 3, 4, 5, 6, 7], "oldest first, as R9 says")
    }

    @Test func fairOrderTakesAddersInTurnsAsInR9bsExample() throws {
        let party = try TestParty.given(settings: ["fairQueue": true])
        #expect(try party.client.get("\(party.base)/settings").json["fairQueue"] as? Bool == true)
        for number in 1...5 { #expect(try party.add(number, device: "A").status == 200) }
        try party.add(6, device: "B")
        try party.add(7, device: "C")
        #expect(waitingGuestSongs(try party.queue()) == [1, 6, 7, 2, 3, 4, 5], "A1, B1, C1, A2, A3, A4, A5")
        #expect(try party.vote(3, device: "D").json["liked"] as? Bool == true)
        // A3 then waits ahead of A's other songs, so B1 and C1 go before A1.
        #expect(waitingGuestSongs(try party.queue()) == [3, 6, 7, 1, 2, 4, 5], "one like on A3 puts A3 first")
    }

    @Test func settingsNeedTheHostPinAndRefuseBadValues() throws {
        let party = try TestParty.given()
        #expect(try party.client.send("PUT", "\(party.base)/settings", json: ["fairQueue": true]).status == 401)
        #expect(try party.client.send("PUT", "\(party.base)/settings", json: ["fairQueue": true],
                                      auth: party.hostPin == "00000" ? "11111" : "00000").status == 403)
        for bad: [String: Any] in [["vetoShare": 1.5], ["vetoShare": -0.1], ["vetoShare": "0.4"], ["vetoShare": true], ["fairQueue": "yes"]] {
            let refused = try party.host("PUT", "/settings", json: bad)
            #expect(refused.status == 400, "\(bad)")
            #expect(refused.error == (bad["vetoShare"] != nil ? "vetoShare muss eine Zahl von 0 bis 1 sein." : "fairQueue muss true oder false sein."))
        }
        let stored = try party.host("PUT", "/settings", json: ["vetoShare": 0.4])
        #expect(stored.status == 200 && stored.json["vetoShare"] as? Double == 0.4 && stored.json["fairQueue"] as? Bool == false)
        #expect(try party.client.get("\(party.base)/settings").json["vetoShare"] as? Double == 0.4, "kept, even before vetoes exist")
        let creation = try party.client.from(TestParty.nextHostAddress()).send("POST", "/api/party", json: ["provider": "demo", "vetoShare": 2])
        #expect(creation.status == 400 && creation.error == "vetoShare muss eine Zahl von 0 bis 1 sein.")
        let openAPI = try party.client.get("/api/openapi.json").text
        #expect(openAPI.contains("/api/party/{id}/settings") && openAPI.contains("fairQueue") && openAPI.contains("vetoShare"))
    }
}

@Suite("R18a startsInMs and mine on queue entries")
struct StartTimesRoutesTests {
    @Test func everyEntryCarriesItsStartAndOnlyTheAskersOwnAreMine() throws {
        let party = try TestParty.given()
        try party.add(1, device: "A")
        try party.add(2, device: "B")
        try party.add(3, device: "A")
        let queue = try party.queue(device: "A")
        let durations = queue.map { $0["duration_ms"] as? Int ?? 0 }
        // Nothing plays: the first song starts now, each next one after the durations ahead.
        #expect(queue.map { $0["startsInMs"] as? Int } == [0, durations[0], durations[0] + durations[1]])
        #expect(queue.map { $0["mine"] as? Bool } == [true, nil, true], "A's own entries, and nothing about B's")
        #expect(try party.queue().allSatisfy { $0["mine"] == nil }, "without a deviceId nobody's songs are named")
    }

    @Test func whilePlayingTheTimesCountDownFromTheRestOfTheCurrentSong() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(1, device: "A")
        try party.add(2, device: "B")
        #expect(try eventually { try party.current()["track"] != nil })
        #expect(try party.host("POST", "/track/pause").status == 200)
        let position = try party.current()["progressMs"] as? Int ?? 0
        let queue = try party.queue()
        let duration = queue.first?["duration_ms"] as? Int ?? 0
        #expect(queue.first?["startsInMs"] as? Int == 0, "the playing entry has started")
        let second = queue.first { $0["uri"] as? String == "demo:track:2" }
        #expect(queue.first?["uri"] as? String == "demo:track:1")
        #expect(second?["startsInMs"] as? Int == duration - position, "paused: the rest of the current song, frozen")
    }
}

/// R17a and R30 on the PostgreSQL store; the events a veto sends and a ban across a restart are
/// `EndToEndTests/CrowdEndToEndTests`.
@Suite("R17a crowd veto and R30 ban on PostgreSQL")
struct CrowdPostgreSQLRoutesTests {
    @Test func vetoesAndBansRunOnPostgreSQL() throws {
        let database = try PostgreSQLCluster.shared().createDatabase()
        let server = try InProcessServer { $0.databaseURL = database }
        let party = try TestParty(server, settings: ["vetoShare": 0.4])
        _ = try party.registerMonitor()
        try party.add(1, device: "host-phone")
        try party.add(2, device: "troll")
        // Two of the troll's fellow guests (three, then four active; two of them needed) remove its waiting song.
        for device in ["A", "B"] { #expect(try party.veto(2, device: device).status == 200) }
        #expect(!(try party.queueUris().contains("demo:track:2")), "two vetoes removed the waiting song")
        try party.add(3, device: "troll")
        let entryId = try #require(party.queue().first { $0["uri"] as? String == "demo:track:3" }?["id"] as? String)
        #expect(try party.host("POST", "/ban", json: ["entryId": entryId]).json["removed"] as? Int == 1)
        #expect(try party.add(4, device: "troll").status == 403)
        #expect(try party.host("DELETE", "/bans").status == 200)
        #expect(try party.add(4, device: "troll").status == 200)
    }
}
