import Foundation
import PartyTestSupport
import Testing
import TestSupport

/// R36: where the party shows nicknames, a guest names itself (bounded, hostile text refused, the blacklist applies, one
/// per party) and its entries carry `addedBy`; off hides every nickname at once; a ban stays by device. Both databases.
@Suite("R36 nicknames", .serialized)
struct NicknameRoutesTests {
    typealias Backend = HostAccessRoutesTests.Backend

    static func setNickname(_ party: TestParty, _ nickname: Any?, device: String, from address: String = "127.0.0.1") throws -> HTTPResponse {
        try party.client.from(address).send("PUT", "\(party.base)/nickname", json: ["deviceId": device, "nickname": nickname ?? NSNull()])
    }

    /// The scenarios below on one server per database, each with parties of its own (a PostgreSQL server per scenario
    /// held the test cluster's connections).
    @Test(arguments: Backend.allCases)
    func everyNicknameRuleOnEitherDatabase(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        try aGuestsNicknameShowsOnItsSongsWhileThePartyShowsNicknames(server)
        try aBanStaysWithTheDeviceAndChangesAreThrottled(server)
    }

    func aGuestsNicknameShowsOnItsSongsWhileThePartyShowsNicknames(_ server: InProcessServer) throws {
        let party = try TestParty(server)
        #expect(try party.client.get("\(party.base)/settings").json["nicknames"] as? Bool == false, "anonymous unless asked for")
        #expect(try Self.setNickname(party, "Anna", device: "guest-1").isError(409, "Spitznamen sind in dieser Party ausgeschaltet."))
        #expect(try party.host("PUT", "/settings", json: ["nicknames": "yes"]).isError(400, "nicknames muss true oder false sein."))
        #expect(try party.host("PUT", "/settings", json: ["nicknames": true]).json["nicknames"] as? Bool == true)

        let set = try Self.setNickname(party, "  DJ Anna ", device: "guest-1")
        #expect(set.status == 200 && set.json["nickname"] as? String == "DJ Anna", "\(set)")
        _ = try party.registerMonitor()
        try party.add(1, device: "guest-1")
        try party.add(2, device: "guest-1")
        try party.add(3, device: "guest-2")
        let queue = try party.queue()
        #expect(queue.prefix(3).map { $0["addedBy"] as? String } == ["DJ Anna", "DJ Anna", nil], "guest-2 chose none")
        #expect(queue.dropFirst(3).allSatisfy { $0["addedBy"] == nil }, "R15's refill is nobody's")
        #expect(((try party.current()["track"] as? [String: Any])?["addedBy"] as? String) == "DJ Anna", "the TV shows who added it")
        #expect(try party.client.get("\(party.base)/track/queue?deviceId=guest-1").json["nickname"] as? String == "DJ Anna")
        #expect(!(try party.client.get("\(party.base)/track/queue").text.contains("guest-1")), "never the device")

        // One per party, in the blacklist's folds; the holder may set it again.
        #expect(try Self.setNickname(party, "dj ANNA", device: "guest-2").isError(409, "Spitzname ist schon vergeben."))
        #expect(try Self.setNickname(party, "DJ Αnna", device: "guest-2").isError(409, "Spitzname ist schon vergeben."), "a Greek alpha")
        #expect(try Self.setNickname(party, "dj anna", device: "guest-1").status == 200)
        #expect(try party.host("PUT", "/blacklist", json: ["word": "spam"]).status == 200)
        #expect(try Self.setNickname(party, "S.P.A.M. King", device: "guest-2").isError(403, "Nicht erlaubt."), "R12")
        for hostile: Any in ["", "   ", String(repeating: "x", count: 25), "Anna\u{202E}evil", "Zero\u{200B}Width", "Line\nBreak", 42,
                             String(repeating: "𒀀", count: 30)] {
            #expect(try Self.setNickname(party, hostile, device: "guest-2").isError(400, "Spitzname: 1 bis 24 Zeichen, ohne Steuer- und unsichtbare Zeichen."),
                    "\(hostile)")
        }
        #expect(try party.client.send("PUT", "\(party.base)/nickname", json: ["nickname": "Bob"]).status == 400, "a device id is needed")
        let markup = try Self.setNickname(party, "<b>Bo</b>&amp;", device: "guest-2")
        #expect(markup.status == 200, "markup is text: pages escape it: \(markup)")
        #expect(try Self.setNickname(party, nil, device: "guest-2").json["nickname"] is NSNull, "null clears it")

        // Off hides every nickname at once; on again shows them.
        #expect(try party.host("PUT", "/settings", json: ["nicknames": false]).status == 200)
        #expect(try party.queue().allSatisfy { $0["addedBy"] == nil })
        #expect((try party.current()["track"] as? [String: Any])?["addedBy"] == nil)
        #expect(try party.client.get("\(party.base)/track/queue?deviceId=guest-1").json["nickname"] == nil)
        #expect(try party.host("PUT", "/settings", json: ["nicknames": true]).status == 200)
        #expect(try party.queue().first?["addedBy"] as? String == "dj anna")
    }

    func aBanStaysWithTheDeviceAndChangesAreThrottled(_ server: InProcessServer) throws {
        let party = try TestParty(server, settings: ["nicknames": true, "approval": "all"])
        #expect(try Self.setNickname(party, "Mila", device: "guest-1").status == 200)
        let pending = try party.add(1, device: "guest-1")
        let pendingId = try #require((pending.json["pendingIds"] as? [String])?.first)
        let items = try #require(try party.host("GET", "/pending").json["items"] as? [[String: Any]])
        #expect(items.first?["addedBy"] as? String == "Mila", "the host sees who asked, by nickname (R35)")
        #expect(try party.host("POST", "/pending/\(pendingId)/approve").status == 200)
        let entryId = try #require(try party.entry(1)?["id"] as? String)
        #expect(try party.host("POST", "/ban", json: ["entryId": entryId]).status == 200)
        #expect(try Self.setNickname(party, "Mila 2", device: "guest-1").isError(403, "Nicht erlaubt."), "R30 by device")
        #expect(try Self.setNickname(party, "Mila", device: "guest-3").isError(409, "Spitzname ist schon vergeben."),
                "a banned guest's nickname stays taken: nobody takes over its name")

        var answers: [Int] = []
        // Another phone on another network (R30 keeps the banned guest's address out too).
        for index in 0..<40 { answers.append(try Self.setNickname(party, "Name \(index)", device: "guest-9", from: "10.66.0.9").status) }
        #expect(answers.prefix(30).allSatisfy { $0 == 200 }, Comment(rawValue: "throttled like likes: \(answers)"))
        #expect(answers.last == 429, "throttled like likes: \(answers)")
    }
}
