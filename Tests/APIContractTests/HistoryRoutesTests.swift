import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R33: a party that keeps its history remembers each song that played and shows a recap once it ended; one that
/// does not (the API's default) keeps R14, on either database.
@Suite("R33 remembering what played")
struct HistoryRoutesTests {
    typealias Backend = HostAccessRoutesTests.Backend

    /// The songs' track numbers and how each ended.
    func played(_ items: [[String: Any]]) -> [String] {
        items.map { "\(($0["uri"] as? String ?? "").split(separator: ":").last ?? "") \($0["ended"] as? String ?? "")" }
    }

    func currentEntryId(_ party: TestParty) throws -> String {
        try #require((party.current()["track"] as? [String: Any])?["id"] as? String)
    }

    @Test(arguments: Backend.allCases)
    func aPartyWithHistoryRemembersEachSongThatEndedWasSkippedOrVetoedAway(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server, settings: ["history": true, "vetoShare": 0.4])
        #expect(try party.client.get("\(party.base)/settings").json["history"] as? Bool == true)
        let monitor = try party.registerMonitor()
        let start = server.clock.now()
        for number in 1...4 { try party.add(number) }
        #expect(try party.vote(1, device: "fan").json["liked"] as? Bool == true)
        #expect(try party.vote(1, device: "friend").json["liked"] as? Bool == true)
        #expect((try party.host("GET", "/history").json["items"] as? [[String: Any]])?.isEmpty == true, "nothing ended yet")

        server.clock.advance(by: 3)
        let ended = try party.client.send("POST", "\(party.base)/track/next", json: ["entryId": try currentEntryId(party)], auth: monitor)
        #expect(ended.status == 200, "\(ended)")
        server.clock.advance(by: 2)
        #expect(try party.host("POST", "/track/next").status == 200)
        #expect(try party.currentUri() == "demo:track:3")
        #expect(try party.veto(3, device: "fan").status == 200)
        #expect(try party.veto(3, device: "friend").json["vetoed"] as? Bool == true)
        #expect(try party.currentUri() == "demo:track:4", "two of three possible vetoes skip the song")

        let history = try party.host("GET", "/history")
        #expect(history.status == 200, "\(history)")
        let items = try #require(history.json["items"] as? [[String: Any]])
        #expect(played(items) == ["1 finished", "2 skipped", "3 vetoed"])
        #expect(items.map { $0["likeCount"] as? Int } == [2, 0, 0])
        #expect(items.first?["startedAt"] as? Int == Int(start.timeIntervalSince1970 * 1000), "song 1 started when it was added")
        #expect(items[1]["startedAt"] as? Int == Int(start.timeIntervalSince1970 * 1000) + 3_000)
        #expect((items.first?["artists"] as? [[String: Any]])?.first?["name"] is String && items.first?["name"] is String)
        #expect(!history.text.contains("guest-1") && !history.text.contains("addedBy") && !history.text.contains("mine"),
                "never who added a song: \(history.text)")
        #expect(try party.client.get("\(party.base)/history").isError(401, "Host-PIN fehlt."))

        // The exports are the evening: the songs played, the playing one, then the waiting ones.
        let locations = try party.host("GET", "/export.m3u8").text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        let files: [String] = locations.prefix(4).map { (line: Substring) -> String in String(line.split(separator: "/").last ?? "") }
        #expect(files == ["1.wav", "2.wav", "3.wav", "4.wav"], "\(locations)")
        let jspf = try party.host("GET", "/export.jspf").json["playlist"] as? [String: Any]
        #expect((jspf?["track"] as? [[String: Any]])?.count == locations.count)

        #expect(try party.client.get("\(party.base)/recap").status == 404, "a running party has no recap")
        #expect(try party.host("DELETE", "").status == 204)
        #expect(try party.host("GET", "/history").status == 404, "R5's 404 stays for the API")
        let recap = try party.client.get("\(party.base)/recap")
        #expect(recap.status == 200, "\(recap)")
        #expect(played(try #require(recap.json["songs"] as? [[String: Any]])) == ["1 finished", "2 skipped", "3 vetoed", "4 party-ended"],
                "the song playing at the end was heard too")
        #expect(played(try #require(recap.json["mostLiked"] as? [[String: Any]])) == ["1 finished"], "songs without a like are not among the most liked")
        #expect(recap.json["likes"] as? Int == 2)
        #expect(recap.json["guests"] as? Int == 3, "the adder, the fan and the friend")
    }

    @Test(arguments: Backend.allCases)
    func withoutHistoryNothingIsKeptAndTheEndIsTodays(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        #expect(try party.client.get("\(party.base)/settings").json["history"] as? Bool == false, "off unless asked for (R14)")
        _ = try party.registerMonitor()
        try party.add(1)
        try party.add(2)
        #expect(try party.host("POST", "/track/next").status == 200)
        let off = try party.host("GET", "/history")
        #expect(off.isError(409, "Verlauf ist in dieser Party ausgeschaltet.") && off.code == "history_off", "\(off)")
        let locations = try party.host("GET", "/export.m3u8").text.split(separator: "\n").filter { !$0.hasPrefix("#") }
        #expect(!locations.contains { $0.hasSuffix("/1.wav") || $0.hasSuffix("/2.wav") }, "R32: only the waiting songs: \(locations)")

        // Turned on later, it remembers from then on; turned off, the list is closed to everyone.
        let on = try party.host("PUT", "/settings", json: ["history": true])
        #expect(on.status == 200 && on.json["history"] as? Bool == true && on.json["fairQueue"] as? Bool == false, "\(on)")
        try party.add(3)
        #expect(try party.host("POST", "/track/next").status == 200)
        #expect(played(try party.host("GET", "/history").json["items"] as? [[String: Any]] ?? []) == ["2 skipped"])
        #expect(try party.host("PUT", "/settings", json: ["history": "yes"]).isError(400, "history muss true oder false sein."))
        #expect(try party.host("PUT", "/settings", json: ["history": false]).status == 200)
        #expect(try party.host("GET", "/history").status == 409)
        #expect(try party.host("DELETE", "").status == 204)
        #expect(try party.client.get("\(party.base)/recap").status == 404, "no history, no recap: the end screen of today")
        #expect(try party.client.get("/api/party/00000000000000000000000000000000/recap").status == 404)
    }

    @Test func theRoutesAreDescribed() throws {
        let openAPI = try InProcessServer().client.get("/api/openapi.json").text
        #expect(openAPI.contains("/api/party/{id}/history") && openAPI.contains("/api/party/{id}/recap") && openAPI.contains("history_off"))
    }
}
