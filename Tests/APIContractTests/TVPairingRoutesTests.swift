import Foundation
import PartyTestSupport
import Testing

@Suite("Pairing a TV in one step")
struct TVPairingRoutesTests {
    @Test func theHostClaimsTheCodeTheTVShowsAndTheTVBecomesTheMonitor() throws {
        let party = try TestParty.given()
        let tv = party.client.from("192.0.2.91")
        #expect(try tv.get("/tv").status == 200, "the short TV address is the monitor page")
        let opened = try tv.send("POST", "/api/tv/pairing")
        #expect(opened.status == 201, "\(opened)")
        let code = try #require(opened.json["code"] as? String)
        let secret = try #require(opened.json["secret"] as? String)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(opened.json["pairUrl"] as? String == "\(InProcessServer.publicURL)/host#pairTv=\(code)")
        let qr = try #require(opened.json["qr"] as? String)
        #expect(qr.hasPrefix("data:image/png;base64,"), "the QR code travels with the pairing")
        let qrRoute = try tv.get("/api/tv/pairing/\(code)/qr")
        #expect(qrRoute.isError(404, "Not found"), "no route tells which codes wait: \(qrRoute)")
        let waiting = try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"])
        #expect(waiting.status == 200 && waiting.json["status"] as? String == "waiting", "\(waiting)")

        // A guest cannot claim it; the code alone tells the room nothing.
        let guestClaim = try party.client.send("POST", "\(party.base)/tv/pair", json: ["code": code])
        #expect(guestClaim.isError(401, "Host-PIN fehlt."), "\(guestClaim)")
        let byCode = try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(code)"])
        #expect(byCode.isError(401, "Host-PIN fehlt."), "\(byCode)")
        let shortCode = try party.host("POST", "/tv/pair", json: ["code": "12345"])
        #expect(shortCode.isError(400, "Invalid code: six digits"), "\(shortCode)")

        let claimed = try party.host("POST", "/tv/pair", json: ["code": code])
        #expect(claimed.status == 200 && claimed.json["paired"] as? Bool == true, "\(claimed)")
        let paired = try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"])
        #expect(paired.json["status"] as? String == "paired" && paired.json["partyId"] as? String == party.id)
        let token = try #require(paired.json["monitorToken"] as? String)
        #expect(token != party.hostPin)
        let registered = try tv.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-9", "kind": "monitor"], auth: token)
        #expect(registered.status == 200 && registered.json["monitorToken"] as? String == token)
        #expect(try party.current()["deviceActive"] as? Bool == true)

        let saidOnce = try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"])
        #expect(saidOnce.isError(404, "Code unbekannt oder abgelaufen."), "said once: \(saidOnce)")
        let reused = try party.host("POST", "/tv/pair", json: ["code": code])
        #expect(reused.isError(404, "Code unbekannt oder abgelaufen."), "a used code cannot be claimed again: \(reused)")
    }

    @Test func sweepingCodesIsLockedAfterTenWrongOnesAndOpeningIsThrottled() throws {
        let party = try TestParty.given()
        let tv = party.client.from("192.0.2.92")
        let code = try #require(try tv.send("POST", "/api/tv/pairing").json["code"] as? String)
        let sweeper = party.client.from("192.0.3.93")
        var replies: [HTTPResponse] = []
        for guess in 0..<11 {
            let wrong = String(format: "%06d", (Int(code)! + 1 + guess) % 1_000_000)
            replies.append(try sweeper.send("POST", "\(party.base)/tv/pair", json: ["code": wrong], auth: party.hostPin))
        }
        #expect(replies.prefix(10).allSatisfy { $0.isError(404, "Code unbekannt oder abgelaufen.") }, "\(replies.map(\.status))")
        #expect(replies.last?.isError(429, "Zu viele Versuche — bitte kurz warten.") == true, "\(replies.last.map(String.init(describing:)) ?? "")")
        let locked = try sweeper.send("POST", "\(party.base)/tv/pair", json: ["code": code], auth: party.hostPin)
        #expect(locked.isError(429, "Zu viele Versuche — bitte kurz warten.") && locked.header("retry-after") != nil, "even the right code waits: \(locked)")
        #expect(try party.host("POST", "/tv/pair", json: ["code": code]).status == 200, "another address is not locked")

        let flooder = party.client.from("192.0.4.94")
        let opens = try (0..<11).map { _ in try flooder.send("POST", "/api/tv/pairing") }
        #expect(opens.prefix(10).allSatisfy { $0.status == 201 }, "\(opens.map(\.status))")
        #expect(opens.last?.isError(429, "Zu viele Anfragen — bitte kurz warten.") == true, "\(opens.last.map(String.init(describing:)) ?? "")")
    }

    /// A sweep of TV codes from other networks spends the server's budget of wrong codes, never the budget of the
    /// network a TV waits on: the host next to its TV claims the code at once.
    @Test func aCodeSweepFromElsewhereNeverHoldsBackTheHostNextToItsTV() throws {
        let server = try InProcessServer()
        let sweeping = try TestParty(server), hosting = try TestParty(server)
        let tv = server.client.from("192.0.2.95")
        let code = try #require(try tv.send("POST", "/api/tv/pairing").json["code"] as? String)
        var statuses: [Int] = []
        for guess in 0..<45 {
            let wrong = String(format: "%06d", (Int(code)! + 1 + guess) % 1_000_000)
            statuses.append(try server.client.from("198.51.\(guess % 3).9").send("POST", "\(sweeping.base)/tv/pair", json: ["code": wrong],
                                                                              auth: sweeping.hostPin).status)
        }
        #expect(statuses.filter { $0 == 404 }.count == 30 && statuses.filter { $0 == 429 }.count == 15, "\(statuses)")
        let claimed = try server.client.from("192.0.2.40").send("POST", "\(hosting.base)/tv/pair", json: ["code": code], auth: hosting.hostPin)
        #expect(claimed.status == 200 && claimed.json["paired"] as? Bool == true, "the host's phone on the TV's Wi-Fi: \(claimed)")
    }
}
