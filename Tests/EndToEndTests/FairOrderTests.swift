import Foundation
import Testing
import TestSupport

/// The waiting guest songs' track numbers, in the server's order (the playing and auto-filled entries left out).
private func waitingGuestSongs(_ queue: [[String: Any]]) -> [Int] {
    queue.filter { $0["isCurrentlyPlaying"] as? Bool != true && $0["autofilled"] as? Bool != true }
        .compactMap { ($0["uri"] as? String)?.split(separator: ":").last.flatMap { Int($0) } }
}

@Suite("R9b fair order and the party settings", .alsoOnRoundRobinCluster)
struct FairOrderTests {
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

    @Test func theHostTurnsFairOrderOnAndOffLive() throws {
        let party = try TestParty.given()
        for number in 1...3 { try party.add(number, device: "A") }
        try party.add(4, device: "B")
        let events = try party.events()
        let on = try party.host("PUT", "/settings", json: ["fairQueue": true])
        #expect(on.status == 200 && on.json["fairQueue"] as? Bool == true && on.json["vetoShare"] as? Double == 0)
        _ = try events.waitFor("queue-updated") { $0.payload["reason"] as? String == "settings" }
        #expect(waitingGuestSongs(try party.queue()) == [1, 4, 2, 3])
        #expect(try party.host("PUT", "/settings", json: ["fairQueue": false]).status == 200)
        #expect(waitingGuestSongs(try party.queue()) == [1, 2, 3, 4])
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

    @Test func songsPlayedPerAdderCountAndSurviveARestart() throws {
        let first = try ServerProcess()
        let party = try TestParty(first, settings: ["fairQueue": true])
        _ = try party.registerMonitor()
        try party.add(1, device: "A")
        #expect(try eventually { try party.current()["track"] != nil }, "the idle party starts A's song")
        #expect(try party.host("POST", "/track/next").status == 200, "A's song is played (skipped counts too)")
        try party.add(4, device: "A")
        try party.add(5, device: "B")
        #expect(waitingGuestSongs(try party.queue()) == [5, 4], "A has had a song played, B none")
        first.stop()

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        #expect(waitingGuestSongs(try TestPartyHandle(party: party, server: second).queue()) == [5, 4], "the counter survives a restart")
    }
}
