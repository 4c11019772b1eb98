import Foundation
import PartyTestSupport
import Testing

@Suite("Party endpoints (R1–R5, R24, R25, R27, R29)")
struct PartyRoutesTests {
    @Test func creatingAPartyAnswersIdPinsAndJoinUrl() throws {
        let party = try TestParty.given()
        #expect(party.id.count == 32)
        #expect(party.pin.count == 5 && party.hostPin.count == 5 && party.pin != party.hostPin)
        #expect(party.pin.allSatisfy(\.isNumber) && party.hostPin.allSatisfy(\.isNumber))
        #expect(party.joinUrl == "\(InProcessServer.publicURL)/join/\(party.pin)")
        let joined = try party.client.get("/api/party/join/\(party.pin)")
        #expect(joined.status == 200 && joined.json["id"] as? String == party.id, "\(joined)")
        let hostJoined = try party.client.get("/api/party/host-join/\(party.hostPin)")
        #expect(hostJoined.status == 200 && hostJoined.json["id"] as? String == party.id && hostJoined.json["guestPin"] as? String == party.pin,
                "\(hostJoined)")
    }

    @Test func providerIsRequiredAndMustBeOffered() throws {
        let server = try InProcessServer()
        let missing = try server.client.send("POST", "/api/party", json: [String: String]())
        #expect(missing.isError(400, "Missing provider"), "\(missing)")
        let empty = try server.client.send("POST", "/api/party")
        #expect(empty.isError(400, "Missing provider"), "no body at all: \(empty)")
        let unknown = try server.client.send("POST", "/api/party", json: ["provider": "napster"])
        #expect(unknown.isError(400, "Invalid provider: must be 'demo', 'local', 'spotify' or 'youtube'"), "\(unknown)")
        let wrongType = try server.client.send("POST", "/api/party", json: ["provider": 5])
        #expect(wrongType.isError(400, "Invalid provider"), "\(wrongType)")
        for provider in ["spotify", "youtube"] {
            let party = try TestParty(server, provider: provider)
            let search = try party.client.get("\(party.base)/track/search?q=x")
            #expect(search.isError(503, "Anbieter nicht konfiguriert.") && search.code == "provider_not_configured", "\(search)")
        }
    }

    @Test func joiningByAnUnknownPinIs404() throws {
        let party = try TestParty.given()
        let unknownPin = party.pin == "00000" || party.hostPin == "00000" ? "00001" : "00000"
        let guest = try party.client.get("/api/party/join/\(unknownPin)")
        #expect(guest.isError(404, "Party nicht gefunden.") && guest.code == "party_not_found", "\(guest)")
        let host = try party.client.get("/api/party/host-join/\(unknownPin)")
        #expect(host.isError(404, "Party nicht gefunden."), "\(host)")
        let byGuestPin = try party.client.get("/api/party/host-join/\(party.pin)")
        #expect(byGuestPin.isError(404, "Party nicht gefunden."), "the guest PIN is no host PIN: \(byGuestPin)")
    }

    @Test func hostPinIsOnlyShownToTheHost() throws {
        let party = try TestParty.given()
        let guest = try party.client.get(party.base)
        #expect(guest.status == 200 && guest.json["pin"] as? String == party.pin && guest.json["provider"] as? String == "demo")
        #expect(guest.json["id"] as? String == party.id)
        #expect(guest.answered(200, without: "hostPin"), "a guest gets the party without the host PIN: \(guest)")
        #expect(!guest.text.contains(party.hostPin), "nor its digits anywhere: \(guest)")
        let wrongPin = party.hostPin == "99999" ? "99998" : "99999"
        let wrong = try party.client.get(party.base, headers: ["Authorization": "Bearer \(wrongPin)"])
        #expect(wrong.answered(200, without: "hostPin") && !wrong.text.contains(party.hostPin),
                "a wrong PIN gets the guest's view and learns nothing: \(wrong)")
        let host = try party.client.get(party.base, headers: ["Authorization": "Bearer \(party.hostPin)"])
        #expect(host.status == 200 && host.json["hostPin"] as? String == party.hostPin, "\(host)")
    }

    @Test func hostAuthFailuresComeInSpecOrderThenThrottle() throws {
        let party = try TestParty.given()
        let nobody = String(repeating: "0", count: 32)
        let malformed = try party.client.send("PUT", "/api/party/\(nobody)/default-playlist", raw: "{nope", auth: party.hostPin)
        #expect(malformed.isError(400, "Invalid JSON"), "malformed before unknown: \(malformed)")
        let unknown = try party.client.send("DELETE", "/api/party/\(nobody)")
        #expect(unknown.isError(404, "Party nicht gefunden."), "unknown before missing: \(unknown)")
        let missing = try party.client.send("DELETE", party.base)
        #expect(missing.isError(401, "Host-PIN fehlt.") && missing.header("www-authenticate") == "Bearer", "\(missing)")
        let basic = try party.client.send("DELETE", party.base, headers: ["Authorization": "Basic \(party.hostPin)"])
        #expect(basic.isError(401, "Host-PIN fehlt."), "only Bearer counts: \(basic)")
        let wrongPin = party.hostPin == "00000" ? "00001" : "00000"
        for attempt in 1...10 {
            let wrong = try party.client.send("DELETE", party.base, auth: wrongPin)
            #expect(wrong.isError(403, "Falsche Host-PIN."), "attempt \(attempt): \(wrong)")
        }
        let throttled = try party.client.send("DELETE", party.base, auth: wrongPin)
        #expect(throttled.isError(429, "Zu viele Versuche — bitte kurz warten."), "\(throttled)")
        #expect(Int(throttled.header("retry-after") ?? "") ?? 0 > 0)
        let rightButThrottled = try party.client.send("DELETE", party.base, auth: party.hostPin)
        #expect(rightButThrottled.status == 429, "R24a: while over the budget even the right PIN reveals nothing: \(rightButThrottled)")
        let elsewhere = try party.client.from("10.250.0.9").get("\(party.base)/blacklist", headers: ["Authorization": "Bearer \(party.hostPin)"])
        #expect(elsewhere.status == 200, "another address is not throttled: \(elsewhere)")
        #expect(try party.client.get(party.base).status == 200, "the party itself is untouched")
    }

    @Test func guessingGuestPinsIsThrottledForAMinute() throws {
        let party = try TestParty.given()
        let guesser = party.client.from("10.251.0.1")
        var replies: [HTTPResponse] = []
        for index in 0..<31 {
            var guess = String(format: "%05d", index)
            if guess == party.pin || guess == party.hostPin { guess = "abcde" }
            replies.append(try guesser.get("/api/party/join/\(guess)"))
        }
        #expect(replies.prefix(30).allSatisfy { $0.isError(404, "Party nicht gefunden.") })
        #expect(replies.last?.isError(429, "Zu viele Versuche — bitte kurz warten.") == true, "\(replies.last.map(String.init(describing:)) ?? "")")
        let blocked = try guesser.get("/api/party/join/\(party.pin)")
        #expect(blocked.status == 429 && Int(blocked.header("retry-after") ?? "") ?? 0 > 0, "even the right PIN: \(blocked)")
        #expect(try party.client.from("10.252.0.1").get("/api/party/join/\(party.pin)").status == 200, "a guest elsewhere joins")
        party.clock.advance(by: 61)
        let later = try guesser.get("/api/party/join/\(party.pin)")
        #expect(later.status == 200 && later.json["id"] as? String == party.id, "the window slides: \(later)")
    }

    /// R27 on a shared network: guessers on many of its addresses spend the network's budget, and a guest on another
    /// address of it who has guessed nothing still gets in at once (the QR code's link); each guesser address is
    /// refused, and gets one look-up more at most.
    @Test func aGuestOfANetworkUnderGuessingStillJoinsWithTheRightPin() throws {
        let party = try TestParty.given()
        var guesses = 0
        for address in 1...8 {
            for index in 0..<12 {
                var guess = String(format: "%05d", address * 100 + index)
                if guess == party.pin || guess == party.hostPin { guess = "abcde" }
                _ = try party.client.from("10.253.0.\(address)").get("/api/party/join/\(guess)")
                guesses += 1
            }
        }
        let guesser = try party.client.from("10.253.0.1").get("/api/party/join/\(party.pin)")
        #expect(guesser.status == 429, "an address that guessed waits, even with the right PIN: \(guesser)")
        let freshGuesser = try party.client.from("10.253.0.77").get("/api/party/join/99999")
        #expect(freshGuesser.status == 404, "a fresh address's one look-up")
        #expect(try party.client.from("10.253.0.77").get("/api/party/join/\(party.pin)").status == 429, "and no second one")
        let guest = try party.client.from("10.253.0.200").get("/api/party/join/\(party.pin)")
        #expect(guest.status == 200 && guest.json["id"] as? String == party.id, "the guest scanning the QR code: \(guest)")
        #expect(guesses > 90, "the network's budget (90 a minute) was spent")
    }

    /// R5 through the API (the `party-ended` event is the end-to-end tests' part).
    @Test func anEndedPartyAnswers404Everywhere() throws {
        let party = try TestParty.given()
        try party.add(3)
        let ended = try party.host("DELETE", "")
        #expect(ended.status == 204 && ended.body.isEmpty, "\(ended)")
        for path in ["", "/track/queue", "/track/current", "/qr", "/track/search?q="] {
            let reply = try party.client.get(party.base + path)
            #expect(reply.isError(404, "Party nicht gefunden."), "\(path): \(reply)")
        }
        #expect(try party.client.get("/api/party/join/\(party.pin)").isError(404, "Party nicht gefunden."))
        #expect(try party.add(4).isError(404, "Party nicht gefunden."))
        #expect(try party.host("DELETE", "").isError(404, "Party nicht gefunden."), "ending twice")
    }

    @Test func theQrCodeDecodesToTheJoinUrl() throws {
        let party = try TestParty.given()
        let response = try party.client.get("\(party.base)/qr")
        #expect(response.status == 200 && response.header("content-type") == "image/png")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png")
        defer { try? FileManager.default.removeItem(at: file) }
        try Data(response.body).write(to: file)
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", file.path]
        let output = Pipe()
        zbar.standardOutput = output
        try zbar.run()
        let decoded = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        zbar.waitUntilExit()
        #expect(decoded == party.joinUrl)
        // PNG IHDR width, bytes 16–19: at least 300 px.
        let width = response.body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width >= 300)
    }
}
