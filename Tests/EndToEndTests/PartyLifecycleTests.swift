import Foundation
import Testing

@Suite("Party endpoints (R1–R5, R24, R25, R27, R29)", .serialized)
struct PartyLifecycleTests {
    @Test func creatingAPartyAnswersIdPinsAndJoinUrl() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(party.id.count == 32)
        #expect(party.pin.count == 5 && party.hostPin.count == 5 && party.pin != party.hostPin)
        #expect(party.joinUrl == "http://127.0.0.1:\(server.port)/join/\(party.pin)")
        let joined = try party.client.get("/api/party/join/\(party.pin)")
        #expect(joined.status == 200 && joined.json["id"] as? String == party.id)
        let hostJoined = try party.client.get("/api/party/host-join/\(party.hostPin)")
        #expect(hostJoined.json["id"] as? String == party.id && hostJoined.json["guestPin"] as? String == party.pin)
    }

    @Test func providerIsRequiredAndMustBeOffered() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let missing = try server.client.send("POST", "/api/party", json: [String: String]())
        #expect(missing.status == 400 && missing.error == "Missing provider")
        let unknown = try server.client.send("POST", "/api/party", json: ["provider": "napster"])
        #expect(unknown.status == 400 && unknown.error == "Invalid provider: must be 'demo', 'local', 'spotify' or 'youtube'")
        let wrongType = try server.client.send("POST", "/api/party", json: ["provider": 5])
        #expect(wrongType.status == 400)
        for provider in ["spotify", "youtube"] {
            let party = try TestParty(server, provider: provider)
            let search = try party.client.get("\(party.base)/track/search?q=x")
            #expect(search.status == 503 && search.error == "Anbieter nicht konfiguriert.")
        }
    }

    @Test func hostPinIsOnlyShownToTheHost() throws {
        let party = try TestParty.given()
        let guest = try party.client.get(party.base)
        #expect(guest.status == 200 && guest.json["pin"] as? String == party.pin && guest.json["provider"] as? String == "demo")
        #expect(guest.answered(200, without: "hostPin"), "a guest gets the party without the host PIN: \(guest)")
        #expect(!guest.text.contains(party.hostPin), "nor its digits anywhere: \(guest)")
        let wrongPin = party.hostPin == "99999" ? "99998" : "99999"
        let wrong = try party.client.get(party.base, headers: ["Authorization": "Bearer \(wrongPin)"])
        #expect(wrong.answered(200, without: "hostPin") && !wrong.text.contains(party.hostPin),
                "a wrong PIN gets the guest's view and learns nothing: \(wrong)")
        let host = try party.client.get(party.base, headers: ["Authorization": "Bearer \(party.hostPin)"])
        #expect(host.json["hostPin"] as? String == party.hostPin)
    }

    @Test func hostAuthFailuresComeInSpecOrderThenThrottle() throws {
        let party = try TestParty.given()
        let malformed = try party.client.send("PUT", "/api/party/\(String(repeating: "0", count: 32))/default-playlist", raw: "{nope")
        #expect(malformed.status == 400)
        let unknown = try party.client.send("DELETE", "/api/party/\(String(repeating: "0", count: 32))")
        #expect(unknown.status == 404)
        let missing = try party.client.send("DELETE", party.base)
        #expect(missing.status == 401 && missing.json["error"] != nil)
        let basic = try party.client.send("DELETE", party.base, headers: ["Authorization": "Basic \(party.hostPin)"])
        #expect(basic.status == 401)
        let wrongPin = party.hostPin == "00000" ? "00001" : "00000"
        for _ in 0..<10 {
            #expect(try party.client.send("DELETE", party.base, auth: wrongPin).status == 403)
        }
        let throttled = try party.client.send("DELETE", party.base, auth: wrongPin)
        #expect(throttled.status == 429)
        #expect(Int(throttled.header("retry-after") ?? "") ?? 0 > 0)
        #expect(try party.client.get(party.base).status == 200, "the party itself is untouched")
    }

    @Test func guessingGuestPinsIsThrottled() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        var statuses: [Int] = []
        for index in 0..<31 {
            var guess = String(format: "%05d", index)
            if guess == party.pin || guess == party.hostPin { guess = "abcde" }
            statuses.append(try server.client.get("/api/party/join/\(guess)").status)
        }
        #expect(statuses.prefix(30).allSatisfy { $0 == 404 })
        #expect(statuses.last == 429)
        let blocked = try server.client.get("/api/party/join/\(party.pin)")
        #expect(blocked.status == 429 && blocked.header("retry-after") != nil)
    }

    @Test func endingAPartyEmptiesItNotifiesClientsAndFreesItsPins() throws {
        let party = try TestParty.given()
        try party.add(3)
        let stream = try party.events()
        let ended = try party.host("DELETE", "")
        #expect(ended.status == 204)
        let event = try stream.waitFor("party-ended")
        #expect(event.payload["partyId"] as? String == party.id)
        #expect(stream.waitForEnd(), "the stream closes after party-ended")
        #expect(try party.client.get(party.base).status == 404)
        #expect(try party.client.get("\(party.base)/track/queue").status == 404)
        #expect(try party.client.get("/api/party/join/\(party.pin)").status == 404)
        #expect(try party.host("DELETE", "").status == 404)
    }

    /// SPEC "Server-Sent Events": a client reconnecting to an ended party gets `party-ended` once and a stream
    /// that stays open with keepalives, never a 404 it would retry in a tight loop.
    @Test func aStreamForAnEndedPartySaysSoOnceAndStaysOpen() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        #expect(try party.host("DELETE", "").status == 204)
        for path in ["/api/spotify/events?partyId=\(party.id)&source=ios", "\(party.base)/events"] {
            let stream = try SSEClient(port: server.port, path: path)
            defer { stream.close() }
            #expect(stream.status == 200 && stream.headers["content-type"]?.hasPrefix("text/event-stream") == true, "\(path)")
            #expect(try stream.waitFor("party-ended").payload["partyId"] as? String == party.id)
            let pings = stream.commentLines.count
            #expect(eventually(timeout: 7) { stream.commentLines.count > pings }, "keepalives follow, the stream stays open")
            #expect(stream.received.count == 1, "party-ended once")
        }
        #expect(try server.client.get("/api/spotify/events?partyId=\(String(repeating: "0", count: 32))&source=web").status == 404,
                "an id that never was a party is still 404")
    }

    @Test func theQrCodeDecodesToTheJoinUrl() throws {
        let party = try TestParty.given()
        let response = try party.client.get("\(party.base)/qr")
        #expect(response.status == 200 && response.header("content-type") == "image/png")
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("qr-\(UUID().uuidString).png")
        try Data(response.body).write(to: file)
        let zbar = Process()
        zbar.executableURL = URL(fileURLWithPath: "/usr/bin/zbarimg")
        zbar.arguments = ["--quiet", "--raw", file.path]
        let output = Pipe()
        zbar.standardOutput = output
        try zbar.run()
        zbar.waitUntilExit()
        let decoded = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(decoded == party.joinUrl)
        // PNG IHDR width, bytes 16–19: at least 300 px.
        let width = response.body[16..<20].reduce(0) { $0 << 8 | Int($1) }
        #expect(width >= 300)
    }
}
