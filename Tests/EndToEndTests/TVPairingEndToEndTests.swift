import Foundation
import Testing

@Suite("Issue 14: pairing a TV in one step")
struct TVPairingEndToEndTests {
    @Test func theHostClaimsTheCodeTheTVShowsAndTheTVBecomesTheMonitor() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        let tv = server.client.from("127.0.9.1")
        #expect(try tv.get("/tv").status == 200, "the short TV address is the monitor page")
        let opened = try tv.send("POST", "/api/tv/pairing")
        #expect(opened.status == 201)
        let code = try #require(opened.json["code"] as? String)
        let secret = try #require(opened.json["secret"] as? String)
        #expect(code.count == 6 && code.allSatisfy(\.isNumber))
        #expect(opened.json["pairUrl"] as? String == "http://127.0.0.1:\(server.port)/host#pairTv=\(code)")
        let qr = try #require(opened.json["qr"] as? String)
        #expect(qr.hasPrefix("data:image/png;base64,"), "the QR code travels with the pairing")
        #expect(try tv.get("/api/tv/pairing/\(code)/qr").status == 404, "no route tells which codes wait")
        #expect(try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"]).json["status"] as? String == "waiting")

        // A guest cannot claim it; the code alone tells the room nothing.
        #expect(try server.client.send("POST", "\(party.base)/tv/pair", json: ["code": code]).status == 401)
        #expect(try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(code)"]).status == 401)
        #expect(try party.host("POST", "/tv/pair", json: ["code": "12345"]).status == 400)

        let claimed = try party.host("POST", "/tv/pair", json: ["code": code])
        #expect(claimed.status == 200)
        let paired = try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"])
        #expect(paired.json["status"] as? String == "paired" && paired.json["partyId"] as? String == party.id)
        let token = try #require(paired.json["monitorToken"] as? String)
        #expect(token != party.hostPin)
        let registered = try tv.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-9", "kind": "monitor"], auth: token)
        #expect(registered.status == 200 && registered.json["monitorToken"] as? String == token)
        #expect(try party.current()["deviceActive"] as? Bool == true)

        #expect(try tv.get("/api/tv/pairing", headers: ["Authorization": "Bearer \(secret)"]).status == 404, "said once")
        #expect(try party.host("POST", "/tv/pair", json: ["code": code]).status == 404, "a used code cannot be claimed again")
    }

    @Test func sweepingCodesIsLockedAfterTenWrongOnesAndOpeningIsThrottled() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let party = try TestParty(server)
        let tv = server.client.from("127.0.9.2")
        let code = try #require(try tv.send("POST", "/api/tv/pairing").json["code"] as? String)
        let sweeper = server.client.from("127.0.9.3")
        var statuses: [Int] = []
        for guess in 0..<11 {
            let wrong = String(format: "%06d", (Int(code)! + 1 + guess) % 1_000_000)
            statuses.append(try sweeper.send("POST", "\(party.base)/tv/pair", json: ["code": wrong], auth: party.hostPin).status)
        }
        #expect(statuses.prefix(10).allSatisfy { $0 == 404 } && statuses.last == 429)
        let locked = try sweeper.send("POST", "\(party.base)/tv/pair", json: ["code": code], auth: party.hostPin)
        #expect(locked.status == 429 && locked.header("retry-after") != nil, "even the right code waits")
        let message = locked.json["error"] as? String
        #expect(message != nil)
        #expect(try party.host("POST", "/tv/pair", json: ["code": code]).status == 200, "another address is not locked")

        let flooder = server.client.from("127.0.9.4")
        let opens = try (0..<11).map { _ in try flooder.send("POST", "/api/tv/pairing").status }
        #expect(opens.prefix(10).allSatisfy { $0 == 201 } && opens.last == 429)
    }
}
