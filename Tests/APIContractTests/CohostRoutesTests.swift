import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R34: the host makes co-host links (at most 5 live), lists them by when their co-hosts joined and revokes them; a
/// co-host's phone does every host action except ending the party, changing settings, co-hosts or the default
/// playlist, and reading the PINs. Its token is a secret: wrong ones count like wrong PINs (R24, R24a). On either database.
@Suite("R34 co-hosts")
struct CohostRoutesTests {
    typealias Backend = HostAccessRoutesTests.Backend

    /// Makes a link with the host PIN; returns its answer's fields.
    static func makeLink(_ party: TestParty) throws -> (token: String, id: String, reply: HTTPResponse) {
        let reply = try party.host("POST", "/cohosts")
        guard reply.status == 201, let token = reply.json["token"] as? String, let id = reply.json["id"] as? String else {
            throw TestFailure(description: "make co-host link: \(reply)")
        }
        return (token, id, reply)
    }

    static func listed(_ party: TestParty) throws -> [[String: Any]] {
        let reply = try party.host("GET", "/cohosts")
        guard reply.status == 200, let list = reply.json["cohosts"] as? [[String: Any]] else { throw TestFailure(description: "list: \(reply)") }
        return list
    }

    @Test(arguments: Backend.allCases)
    func theHostMakesAtMostFiveLiveLinksAndListsThemByWhenTheirCohostsJoined(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        let first = try Self.makeLink(party)
        #expect(first.reply.json["url"] as? String == "\(InProcessServer.publicURL)/cohost#party=\(party.id)&cohost=\(first.token)",
                "the token travels in the fragment, never to a server log")
        #expect((first.reply.json["qr"] as? String)?.hasPrefix("data:image/png;base64,") == true)
        #expect(first.token.count == 32 && first.id.count == 12 && !first.token.contains(first.id))
        var links = [first]
        for _ in 0..<4 {
            server.clock.advance(by: 1)
            links.append(try Self.makeLink(party))
        }
        let sixth = try party.host("POST", "/cohosts")
        #expect(sixth.isError(409, "Höchstens 5 Co-Hosts pro Party. Entferne erst einen.") && sixth.code == "cohost_limit", "\(sixth)")
        #expect(try Self.listed(party).map { $0["id"] as? String } == links.map(\.id), "nobody joined yet: oldest link first")

        // The third link is opened first, then the first: the list follows who joined, links not yet opened after.
        server.clock.advance(by: 10)
        #expect(try party.client.send("GET", party.base, auth: links[2].token).json["role"] as? String == "cohost")
        server.clock.advance(by: 10)
        #expect(try party.client.send("GET", "\(party.base)/blacklist", auth: links[0].token).status == 200)
        let list = try Self.listed(party)
        #expect(list.map { $0["id"] as? String } == [2, 0, 1, 3, 4].map { links[$0].id })
        #expect(list.first?["joinedAt"] as? Int == Int(server.clock.now().timeIntervalSince1970 * 1000) - 10_000)
        #expect(list[2]["joinedAt"] is NSNull && list[2]["createdAt"] is Int)
        let text = try party.host("GET", "/cohosts").text
        #expect(!links.contains { text.contains($0.token) }, "the list names links by their handles, never by their tokens")

        // Revoking one (by its handle) makes room for another; a restart keeps every link and its state (R7).
        #expect(try party.host("DELETE", "/cohosts/\(links[1].id)").status == 204)
        let replacement = try Self.makeLink(party)
        server.application.stop()
        let restarted = try InProcessServer(restarting: server)
        defer { restarted.application.stop() }
        #expect(try restarted.client.send("GET", "\(party.base)/blacklist", auth: replacement.token).status == 200)
        #expect(try restarted.client.send("GET", "\(party.base)/blacklist", auth: links[1].token).code == "cohost_revoked")
        let relisted = try restarted.client.from(party.creatorAddress).send("GET", "\(party.base)/cohosts", auth: party.hostPin)
        #expect((relisted.json["cohosts"] as? [[String: Any]])?.map { $0["id"] as? String } == [links[2].id, links[0].id, replacement.id, links[3].id, links[4].id],
                "the replacement joined at the moment link 1 did, and was made later")
    }

    @Test(arguments: Backend.allCases)
    func aCohostDoesEveryHostActionButEndingSettingsCohostsThePlaylistAndThePins(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        let cohost = try Self.makeLink(party)
        let phone = party.client.from("10.200.0.7")
        func asCohost(_ method: String, _ path: String, json: Any? = nil) throws -> HTTPResponse {
            try phone.send(method, party.base + path, json: json, auth: cohost.token)
        }
        _ = try party.registerMonitor()
        for number in 1...5 { try party.add(number) }
        #expect(try asCohost("POST", "/track/start").json["status"] as? String == "playing")
        #expect(try asCohost("POST", "/track/pause").json["isPlaying"] as? Bool == false)
        #expect(try asCohost("POST", "/track/resume").status == 200)
        #expect(try asCohost("POST", "/track/next").status == 200)
        #expect(try party.currentUri() == "demo:track:2", "the co-host's skip always advances, like the host's")
        #expect(try asCohost("PUT", "/track/play", json: ["uri": "demo:track:4"]).status == 200)
        #expect(try asCohost("DELETE", "/track/remove", json: ["uri": "demo:track:3"]).json["status"] as? String == "removed")
        #expect(try asCohost("POST", "/track/prepare-next").status == 204)
        let waiting = try #require(try party.entry(5)?["id"] as? String)
        #expect(try asCohost("POST", "/ban", json: ["entryId": waiting]).json["removed"] as? Int ?? 0 >= 1)
        #expect(try asCohost("DELETE", "/bans").status == 200)
        #expect(try asCohost("PUT", "/blacklist", json: ["word": "schlager"]).status == 200)
        #expect(try asCohost("GET", "/blacklist").json["words"] as? [String] == ["schlager"])
        #expect(try asCohost("DELETE", "/blacklist", json: ["word": "schlager"]).status == 200)
        #expect(try asCohost("GET", "/history").code == "history_off", "the history is the co-host's to read where the party keeps it")
        #expect(try asCohost("GET", "/export.m3u8").status == 200)
        #expect(try asCohost("PUT", "/device", json: ["deviceId": "phone-tv", "kind": "monitor", "replace": true]).json["monitorToken"] is String,
                "a co-host may play the party on its own phone")

        // The host's own: each is a 403 that says why, and changes nothing.
        let refused = [
            try asCohost("DELETE", ""), try asCohost("PUT", "/settings", json: ["fairQueue": true]),
            try asCohost("PUT", "/default-playlist", json: ["playlistId": "x"]), try asCohost("POST", "/cohosts"),
            try asCohost("GET", "/cohosts"), try asCohost("DELETE", "/cohosts"), try asCohost("DELETE", "/cohosts/\(cohost.id)"),
            try asCohost("POST", "/host-pin"), try asCohost("GET", "/spotify/playlists"),
        ]
        #expect(refused.allSatisfy { $0.isError(403, "Das darf nur der Host.") && $0.code == "host_only" }, "\(refused)")
        #expect(try party.current()["track"] != nil, "the party still runs")
        #expect(try party.client.get("\(party.base)/settings").json["fairQueue"] as? Bool == false)
        #expect(try Self.listed(party).count == 1)

        // R25: the party's details carry the co-host's role and handle, never a PIN or the host's token.
        let details = try asCohost("GET", "")
        #expect(details.status == 200 && details.json["role"] as? String == "cohost" && details.json["cohostId"] as? String == cohost.id)
        #expect(details.answered(200, without: "hostPin") && details.answered(200, without: "hostToken"), "\(details)")
        #expect(!details.text.contains(party.hostPin))
        // R29: the party first, then the header.
        #expect(try phone.send("POST", "/api/party/\(String(repeating: "0", count: 32))/track/pause", auth: cohost.token).status == 404)
        #expect(try phone.send("POST", "\(party.base)/track/pause").isError(401, "Host-PIN fehlt."))
    }

    @Test(arguments: Backend.allCases)
    func aRevokedLinkStopsAtOnceAndSaysSoWithoutSpendingTheBudget(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        let (one, two, three) = (try Self.makeLink(party), try Self.makeLink(party), try Self.makeLink(party))
        let phone = party.client.from("10.200.0.8")
        #expect(try phone.send("POST", "\(party.base)/track/prepare-next", auth: one.token).status == 204)
        #expect(try party.host("DELETE", "/cohosts/\(one.token)").status == 204, "SPEC names a link by its token; the handle works too")
        for _ in 0..<15 {
            let reply = try phone.send("POST", "\(party.base)/track/prepare-next", auth: one.token)
            #expect(reply.isError(403, "Dieser Co-Host-Link wurde zurückgezogen.") && reply.code == "cohost_revoked", "\(reply)")
        }
        #expect(try phone.send("GET", party.base, auth: one.token).code == "cohost_revoked", "its page learns it on load too")
        #expect(try phone.send("GET", "\(party.base)/blacklist", auth: HostAccessRoutesTests.wrongPin(party.hostPin, 0)).status == 403,
                "a revoked link's calls are no guesses: its phone's address still has its whole budget")
        #expect(try party.host("DELETE", "/cohosts/\(one.id)").status == 204, "revoking again changes nothing")
        #expect(try party.host("DELETE", "/cohosts/abcdefabcdef").isError(404, "Co-Host nicht gefunden."))
        #expect(try party.host("DELETE", "/cohosts/not-a-handle").code == "cohost_not_found")

        let all = try party.host("DELETE", "/cohosts")
        #expect(all.status == 200 && all.json["revoked"] as? Int == 2, "\(all)")
        for link in [two, three] {
            #expect(try phone.send("POST", "\(party.base)/track/prepare-next", auth: link.token).code == "cohost_revoked")
        }
        #expect(try Self.listed(party).isEmpty)
        #expect(try party.host("DELETE", "/cohosts").json["revoked"] as? Int == 0)

        // R5: with the party ended its links answer 404 like everything of it.
        let four = try Self.makeLink(party)
        #expect(try party.host("DELETE", "").status == 204)
        #expect(try phone.send("POST", "\(party.base)/track/prepare-next", auth: four.token).status == 404)
    }

    /// R24/R24a: a wrong co-host token is a wrong secret like a wrong PIN: ten a minute per address and party, then
    /// 429 even for the right PIN. A live co-host link is a 128-bit secret, like the host page's token: it is matched
    /// before the budget, so nobody's guessing locks a co-host out.
    @Test(arguments: Backend.allCases)
    func wrongCohostTokensCountTowardTheHostPinBudget(_ backend: Backend) throws {
        let server = try HostAccessRoutesTests.server(backend)
        let party = try TestParty(server)
        let link = try Self.makeLink(party)
        let guesser = party.client.from("10.200.0.9")
        let guesses = try (0..<11).map { index in
            try guesser.send("POST", "\(party.base)/track/pause", auth: String(format: "%032x", index + 1))
        }
        #expect(guesses.prefix(10).allSatisfy { $0.isError(403, "Falsche Host-PIN.") } && guesses.last?.status == 429, "\(guesses.map(\.status))")
        #expect(try guesser.send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 429, "the right PIN reveals nothing now")
        #expect(try guesser.send("GET", "\(party.base)/blacklist", auth: link.token).status == 200, "the co-host's own link still works")
    }

    @Test func theRoutesAreDescribed() throws {
        let openAPI = try InProcessServer().client.get("/api/openapi.json").text
        #expect(openAPI.contains("/api/party/{id}/cohosts") && openAPI.contains("/api/party/{id}/cohosts/{token}")
                && openAPI.contains("hostOrCohost") && openAPI.contains("cohost_limit"))
    }
}
