import Foundation
import PartyCore
import PartyTestSupport
import Testing
@testable import MusicVotingServer
@testable import PartyEngine

@Suite("Crowd veto (R17a) and ban without unmasking (R30)")
struct CrowdRoutesTests {
    /// A playing party with the veto on: the host's phone added song 1 (it plays, R16), guests 2 and 3.
    static func playingParty(vetoShare: Double = 0.4, clock: ManualClock = ManualClock()) throws -> TestParty {
        let party = try TestParty(InProcessServer(clock: clock), settings: ["fairQueue": true, "vetoShare": vetoShare])
        _ = try party.registerMonitor()
        try party.add(1, device: "host-phone")
        try party.add(2, device: "guest-a")
        try party.add(3, device: "guest-b")
        return party
    }

    /// The uris of the songs guests added (the start refilled the queue from the charts, R15), in order.
    static func guestSongs(_ party: TestParty) throws -> [String] {
        try party.queue().filter { $0["autofilled"] as? Bool == false }.compactMap { $0["uri"] as? String }
    }

    /// R9b: the playing song counts as its adder's, in the order the pages show and in the song that plays next.
    @Test func theNextSongIsTheOneTheFairOrderShowedWhileTheLastOnePlayed() throws {
        let party = try TestParty(InProcessServer(), settings: ["fairQueue": true])
        _ = try party.registerMonitor()
        try party.add(1, device: "flooder")
        try party.add(2, device: "flooder")
        try party.add(3, device: "other")
        #expect(try party.currentUri() == "demo:track:1")
        let shown = try Self.guestSongs(party)
        #expect(shown == ["demo:track:1", "demo:track:3", "demo:track:2"], "the flooder's second waits behind the other's first")
        #expect(try party.host("POST", "/track/next").status == 200)
        #expect(try party.currentUri() == "demo:track:3", "the song shown next plays next")
    }

    @Test func withTheVetoOffTheEndpointSaysSoAndTheQueueKeepsItsShape() throws {
        let party = try TestParty.given()
        try party.add(1)
        let veto = try party.veto(1, device: "guest-2")
        #expect(veto.isError(409, "Veto ist in dieser Party ausgeschaltet.") && veto.code == "veto_off", "\(veto)")
        let queue = try party.client.get("\(party.base)/track/queue?deviceId=guest-2")
        for key in ["vetoCount", "vetoNeeded", "hasVetoed"] { #expect(queue.answered(200, without: key), "\(queue)") }
    }

    @Test func theOtherGuestsVetoesSkipTheCurrentSongExactlyLikeAHostNext() throws {
        let party = try Self.playingParty()
        #expect(try party.currentUri() == "demo:track:1")
        // Three active guests; song 1 is the host phone's, so guest-a and guest-b could veto it: max(2, ⌈0.4 × 2⌉) = 2.
        let first = try party.veto(1, device: "guest-a")
        #expect(first.status == 200 && first.json["vetoed"] as? Bool == true && first.json["vetoCount"] as? Int == 1, "\(first)")
        #expect(first.json["vetoNeeded"] as? Int == 2, "R17a: never fewer than 2: \(first)")
        #expect(try party.currentUri() == "demo:track:1", "one veto short: still playing")
        let playing = try party.entry(1, device: "guest-a")
        #expect(playing?["vetoCount"] as? Int == 1 && playing?["vetoNeeded"] as? Int == 2 && playing?["hasVetoed"] as? Bool == true)
        let second = try party.veto(1, device: "guest-b")
        #expect(second.status == 200 && second.json["vetoCount"] as? Int == 2, "\(second)")
        #expect(try party.currentUri() == "demo:track:2", "skipped as by next: the next song plays")
        #expect(try Self.guestSongs(party) == ["demo:track:2", "demo:track:3"], "the skipped song left, nothing else did")
        let late = try party.veto(1, device: "guest-d")
        #expect(late.isError(404, "Song nicht in der Warteschlange."), "a veto after the skip skips nothing more: \(late)")
        #expect(try party.currentUri() == "demo:track:2")
    }

    @Test func enoughVetoesRemoveAWaitingSong() throws {
        let party = try Self.playingParty()
        // guest-a's song: guest-b's veto needs one more (2 of 2 voters); guest-c's, a fourth guest, is the second of 3 voters.
        for device in ["guest-b", "guest-c"] { #expect(try party.veto(2, device: device).status == 200) }
        #expect(try Self.guestSongs(party) == ["demo:track:1", "demo:track:3"])
        #expect(try party.currentUri() == "demo:track:1", "a waiting song's removal leaves the playing one alone")
    }

    @Test func aVetoIsAToggleOnePerDeviceAndEntry() throws {
        let party = try Self.playingParty()
        #expect(try party.veto(3, device: "guest-a").json["vetoCount"] as? Int == 1)
        let again = try party.veto(3, device: "guest-a")
        #expect(again.status == 200 && again.json["vetoed"] as? Bool == false && again.json["vetoCount"] as? Int == 0, "\(again)")
        #expect(try party.entry(3, device: "guest-a")?["hasVetoed"] as? Bool == false)
    }

    @Test func nobodyVetoesTheirOwnSong() throws {
        let party = try Self.playingParty()
        let own = try party.veto(2, device: "guest-a")
        #expect(own.status == 403 && own.code == "own_song" && own.error != nil, "\(own)")
        #expect(try party.entry(2)?["vetoCount"] as? Int == 0)
    }

    @Test func badVetoesAreRefused() throws {
        let party = try Self.playingParty()
        let unknown = try party.client.send("POST", "\(party.base)/track/veto", json: ["uri": "demo:track:99", "deviceId": "g"])
        #expect(unknown.isError(404, "Song nicht in der Warteschlange."), "\(unknown)")
        let noDevice = try party.client.send("POST", "\(party.base)/track/veto", json: ["uri": "demo:track:2"])
        #expect(noDevice.isError(400, "Missing uri or deviceId"), "\(noDevice)")
        let noParty = try party.client.send("POST", "/api/party/\(String(repeating: "0", count: 32))/track/veto", json: ["uri": "demo:track:2", "deviceId": "g"])
        #expect(noParty.status == 404, "\(noParty)")
    }

    @Test func vetoesCountLikeLikesAgainstTheSameLimits() throws {
        // Every guest's veto needed (a share of 1): the vetoes below skip nothing.
        let party = try Self.playingParty(vetoShare: 1)
        for _ in 0..<15 {
            try party.vote(3, device: "stuffer")
            try party.vote(3, device: "stuffer")
        }
        let limited = try party.veto(3, device: "stuffer")
        #expect(limited.isError(429, "Zu viele Anfragen — bitte kurz warten."), "R11: a veto is one more toggle in the like budget: \(limited)")
        // Rotating device ids gains nothing beyond the network's ration of new guests (60 a minute), likes and vetoes together.
        let rotating = try (0..<40).map { try party.client.from("192.168.7.7").send("POST", "\(party.base)/track/veto",
                                                                                   json: ["uri": "demo:track:3", "deviceId": "r\($0)"]) }
        let refused = try (0..<40).map { try party.client.from("192.168.7.8").send("POST", "\(party.base)/track/vote",
                                                                                  json: ["uri": "demo:track:3", "deviceId": "s\($0)"]) }
        #expect((rotating + refused).filter { $0.status == 429 && $0.code == "too_many_new_guests" }.count == 20,
                "\((rotating + refused).map(\.status))")
        #expect(rotating.allSatisfy { $0.status == 200 }, "the first 40 new guests vetoed")
    }

    @Test func theThresholdIsTheShareOfGuestsActiveInTheLastTenMinutes() throws {
        let clock = ManualClock()
        let party = try Self.playingParty(vetoShare: 0.5, clock: clock)
        // Nine phones open the party (join with their device id); with the three adders, 12 active guests, 11 of them
        // could veto guest-b's song 3: ⌈0.5 × 11⌉ = 6.
        for number in 1...9 {
            let joined = try party.client.get("/api/party/join/\(party.pin)?deviceId=phone-\(number)")
            #expect(joined.status == 200, "\(joined)")
        }
        #expect(try party.entry(3)?["vetoNeeded"] as? Int == 6)
        #expect(try party.veto(3, device: "phone-1").json["vetoNeeded"] as? Int == 6)
        clock.advance(by: 601)
        // Ten minutes on, only the one who just vetoed is active: the floor of 2 holds, and with one voter (guest-a's
        // song counts its adder) the queue offers no veto on it.
        let later = try party.veto(2, device: "phone-2")
        #expect(later.json["vetoNeeded"] as? Int == 2, "\(later)")
        #expect(try party.entry(2)?["vetoNeeded"] == nil, "a song one guest alone could veto offers none")
    }

    /// A phone's activity is written at most once a minute, and with one writer kept in memory until a
    /// flush (once a second, or before the veto's threshold counts it): a like storm of new phones wrote a row per like.
    @Test func aPhonesActivityIsWrittenOnceAMinuteAndCountedBeforeItIsWritten() throws {
        let clock = ManualClock()
        let party = try Self.playingParty(vetoShare: 0.5, clock: clock)
        let service = party.inProcessServer.application.service
        let start = clock.now()
        let written = { (since: Date) throws -> Int in
            try service.withState { try $0.store.activeGuestCount(partyId: party.id, since: since) }
        }
        try service.flushActivityNow()
        let adders = try written(start)
        #expect(adders == 3, "the host's phone and the two guests who added")

        #expect(try party.vote(2, device: "phone-1").status == 200)
        #expect(try written(start) == adders, "kept in memory until a flush")
        // Nine more phones make 13 active, 12 of them song 3's voters: ⌈0.5 × 12⌉ = 6, counted before any flush.
        for number in 2...10 { #expect(try party.vote(2, device: "phone-\(number)").status == 200) }
        #expect(try party.entry(3)?["vetoNeeded"] as? Int == 6)
        #expect(try written(start) == adders + 10, "the count wrote what it counted")

        clock.advance(by: 30)
        #expect(try party.vote(2, device: "phone-1").status == 200)
        try service.flushActivityNow()
        #expect(try written(start.addingTimeInterval(29)) == 0, "liked again within the minute: not written again")

        clock.advance(by: 31)
        #expect(try party.vote(2, device: "phone-1").status == 200)
        #expect(try written(start.addingTimeInterval(60)) == 0)
        try service.flushActivityNow()
        #expect(try written(start.addingTimeInterval(60)) == 1, "a minute on, the like is written with its time")
    }

    @Test func aBanTakesTheAddersWaitingSongsAndRefusesThemForTheRestOfTheParty() throws {
        let party = try Self.playingParty()
        try party.add(4, device: "guest-a")
        try party.add(5, device: "guest-c")
        let entryId = try #require(try party.entry(2)?["id"] as? String)
        let banned = try party.host("POST", "/ban", json: ["entryId": entryId])
        #expect(banned.status == 200 && banned.json["removed"] as? Int == 2, "\(banned)")
        #expect(banned.answered(200, without: "deviceId") && !banned.text.contains("guest-a"), "the host never learns who")
        #expect(try Self.guestSongs(party) == ["demo:track:1", "demo:track:3", "demo:track:5"])
        let add = try party.add(6, device: "guest-a")
        #expect(add.isError(403, "Nicht erlaubt.") && add.code == "banned", "\(add)")
        let like = try party.vote(3, device: "guest-a")
        #expect(like.isError(403, "Nicht erlaubt."), "\(like)")
        let veto = try party.veto(3, device: "guest-a")
        #expect(veto.isError(403, "Nicht erlaubt."), "\(veto)")
        #expect(try party.add(6, device: "guest-b").status == 200, "everyone else goes on")
        let twice = try party.host("POST", "/ban", json: ["entryId": Int(entryId) ?? 0])
        #expect(twice.status == 200 && twice.json["removed"] as? Int == 0, "banning twice is harmless: \(twice)")
        let lifted = try party.host("DELETE", "/bans")
        #expect(lifted.status == 200, "\(lifted)")
        #expect(try party.add(6, device: "guest-a").status == 409, "lifted: the add is judged as any other (a duplicate now)")
        #expect(try party.add(7, device: "guest-a").status == 200)
    }

    /// R30: a banned guest that makes up a new device id on the same address is refused too; a neighbour on
    /// another address of the network is not, and a guest admitted before the ban goes on.
    @Test func aBanReachesNewIdentitiesFromTheBannedGuestsAddress() throws {
        let party = try Self.playingParty()
        for (address, device, number) in [("192.0.2.50", "evader", 4), ("2001:db8:9:9::5", "evader6", 5), ("192.0.2.50", "flatmate", 6)] {
            #expect(try party.client.from(address).send("POST", "\(party.base)/track/addToPlaylist",
                                                        json: ["uri": "demo:track:\(number)", "deviceId": device]).status == 200)
        }
        for number in [4, 5] {
            let entryId = try #require(try party.entry(number)?["id"] as? String)
            #expect(try party.host("POST", "/ban", json: ["entryId": entryId]).status == 200)
        }
        func add(_ address: String, _ device: String, _ number: Int) throws -> HTTPResponse {
            try party.client.from(address).send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": device])
        }
        #expect(try add("192.0.2.50", "evader-2", 7).code == "banned", "a new id on the banned address")
        #expect(try add("2001:db8:9:9::5", "evader6-2", 7).code == "banned")
        #expect(try add("2001:db8:9:9::6", "neighbour6", 7).status == 200, "another address of the /64")
        #expect(try add("192.0.2.51", "neighbour", 8).status == 200, "another address of the /24")
        #expect(try add("192.0.2.50", "flatmate", 9).status == 200, "admitted before the ban: goes on")
        #expect(try party.host("DELETE", "/bans").status == 200)
        #expect(try add("192.0.2.50", "evader-2", 10).status == 200, "lifted")
    }

    /// R17a: made-up ids that join do not push the threshold out of reach: only admitted guests count, rationed.
    @Test func aFloodOfMadeUpJoinsMovesTheThresholdByTheRationOnly() throws {
        let party = try Self.playingParty()
        let before = try #require(try party.entry(3)?["vetoNeeded"] as? Int)
        for index in 0..<1_000 {
            #expect(try party.client.from("192.0.2.99").get("/api/party/join/\(party.pin)?deviceId=flood-\(index)").status == 200)
        }
        let after = try #require(try party.entry(3)?["vetoNeeded"] as? Int)
        let voters = 3 + GuestLimits.newGuestsPerNetwork - 1
        #expect(after == Int((0.4 * Double(voters)).rounded(.up)), "before \(before), after \(after)")
    }

    @Test func banningThePlayingSongsAdderLetsItFinish() throws {
        let party = try Self.playingParty()
        try party.add(4, device: "host-phone")
        let entryId = try #require(try party.entry(1)?["id"] as? String)
        let banned = try party.host("POST", "/ban", json: ["entryId": entryId])
        #expect(banned.json["removed"] as? Int == 1, "\(banned)")
        #expect(try party.currentUri() == "demo:track:1")
        #expect(try party.host("POST", "/ban", json: ["entryId": entryId]).json["removed"] as? Int == 0)
    }

    /// The original web frontend adds without a device id: its songs are nobody's. Another guest on the same address
    /// never reads them as its own, and cannot get them banned as "the address".
    @Test func songsAddedWithoutADeviceIdAreNobodysAndABanTakesOnlyThatSong() throws {
        let party = try Self.playingParty()
        let original = party.client.from("192.0.2.44")
        for number in [7, 8] {
            #expect(try original.send("POST", "\(party.base)/track/addToPlaylist", json: ["demo:track:\(number)"]).status == 200)
        }
        let neighbour = try party.queue(device: "neighbour-on-192.0.2.44")
        #expect(neighbour.allSatisfy { $0["mine"] == nil }, "nobody's songs are nobody's")
        let claim = try party.client.get("\(party.base)/track/queue?deviceId=anonymous%20192.0.2.0/24")
        #expect(claim.isError(400, "Invalid deviceId"), "no device id can name them: \(claim)")
        let entryId = try #require(try party.entry(7)?["id"] as? String)
        let banned = try party.host("POST", "/ban", json: ["entryId": entryId])
        #expect(banned.status == 200 && banned.json["removed"] as? Int == 1, "only that song: \(banned)")
        #expect(try party.queueUris().contains("demo:track:8") && !party.queueUris().contains("demo:track:7"))
        #expect(try original.send("POST", "\(party.base)/track/addToPlaylist", json: ["demo:track:9"]).status == 200, "nobody was banned")
        #expect(try party.client.from("192.0.2.45").send("POST", "\(party.base)/track/addToPlaylist",
                                                     json: ["uri": "demo:track:10", "deviceId": "guest-z"]).status == 200)
    }

    @Test func badBansAreRefused() throws {
        let party = try Self.playingParty()
        let unknown = try party.host("POST", "/ban", json: ["entryId": "987654"])
        #expect(unknown.isError(404, "Song nicht in der Warteschlange."), "\(unknown)")
        let missing = try party.host("POST", "/ban", json: [String: String]())
        #expect(missing.isError(400, "Missing entryId"), "\(missing)")
        let garbage = try party.host("POST", "/ban", json: ["entryId": "1e99"])
        #expect(garbage.isError(400, "Invalid entryId"), "\(garbage)")
        let entryId = try #require(try party.entry(2)?["id"] as? String)
        let guest = try party.client.send("POST", "\(party.base)/ban", json: ["entryId": entryId])
        #expect(guest.status == 401, "\(guest)")
        let wrong = try party.client.send("POST", "\(party.base)/ban", json: ["entryId": entryId], auth: party.hostPin == "00000" ? "11111" : "00000")
        #expect(wrong.status == 403, "\(wrong)")
        #expect(try party.client.send("DELETE", "\(party.base)/bans").status == 401)
    }

    @Test func theOpenAPIDescriptionCoversVetoAndBan() throws {
        let party = try TestParty.given()
        let text = try party.client.get("/api/openapi.json").text
        for path in ["/api/party/{id}/track/veto", "/api/party/{id}/ban", "/api/party/{id}/bans"] {
            #expect(text.contains("\"\(path)\""), "\(path)")
        }
    }
}
