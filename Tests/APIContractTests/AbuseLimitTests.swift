import Foundation
import PartyTestSupport
import Testing

/// A guest once gave one song 14,295 likes in a minute by making up device ids; 200 guests behind one address
/// shared 60 likes a minute. A guest is an identity the party admitted, rationed per network.
@Suite("Likes and adds cannot be stuffed, and a network is many people")
struct AbuseLimitTests {
    @Test func rotatingDeviceIdsGainsNothingBeyondTheNetworksRationOfNewGuests() throws {
        let party = try TestParty.given()
        try party.add(1)
        let stuffer = party.client.from("192.0.2.1")
        var replies: [HTTPResponse] = []
        for index in 0..<70 {
            replies.append(try stuffer.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "made-up-\(index)"]))
        }
        #expect(replies.prefix(60).allSatisfy { $0.status == 200 }, "\(replies.map(\.status))")
        #expect(replies.suffix(10).allSatisfy { $0.isError(429, "Zu viele Anfragen — bitte kurz warten.") && $0.code == "too_many_new_guests" },
                "\(replies.last.map(String.init(describing:)) ?? "")")
        #expect(try party.queue().first?["likeCount"] as? Int == 60)
        let honest = try party.client.from("198.51.100.1").send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "honest"])
        #expect(honest.status == 200 && honest.json["likeCount"] as? Int == 61, "another network's guests still like: \(honest)")
        let adds = try (2...5).map { try stuffer.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\($0)", "deviceId": "adder-\($0)"]) }
        #expect(adds.allSatisfy { $0.code == "too_many_new_guests" }, "the ration is spent for adds too: \(adds.map(\.status))")
        #expect(try stuffer.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:6", "deviceId": "made-up-1"]).status == 200,
                "a guest the party admitted adds within its own R11 limit")
        party.clock.advance(by: 61)
        #expect(try stuffer.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "made-up-70"]).status == 200,
                "a minute on, the next new guest is admitted")
    }

    /// 200 guests behind one NAT address (a venue served on the internet, or one IPv6 /64) each like and add within
    /// their own limits: nothing is counted per address.
    @Test func twoHundredGuestsBehindOneAddressEachLikeAndAdd() throws {
        let party = try TestParty.given()
        try party.add(1)
        let venue = party.client.from("203.0.113.9")
        var admitted = 0
        // They arrive over ten minutes, 20 a minute.
        for minute in 0..<10 {
            for guest in 0..<20 {
                let like = try venue.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "guest-\(minute * 20 + guest)"])
                if like.status == 200 { admitted += 1 }
            }
            party.clock.advance(by: 60)
        }
        #expect(admitted == 200)
        #expect(try party.queue().first?["likeCount"] as? Int == 200)
        // All of them at once: each likes again (an unlike) and 20 add a song, in one minute from one address.
        let unlikes = try (0..<200).map { try venue.send("POST", "\(party.base)/track/vote", json: ["uri": "demo:track:1", "deviceId": "guest-\($0)"]) }
        #expect(unlikes.allSatisfy { $0.status == 200 }, "\(Set(unlikes.map(\.status)))")
        let adds = try (0..<20).map { try venue.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\($0 + 2)", "deviceId": "guest-\($0)"]) }
        #expect(adds.allSatisfy { $0.status == 200 }, "\(adds.map(\.status))")
    }

    @Test func oneDeviceLikesAtMostThirtyTimesAMinuteAndItsAddLimitIsPerParty() throws {
        let party = try TestParty.given()
        try party.add(1)
        let toggles = try (0..<31).map { _ in try party.vote(1, device: "fidget") }
        #expect(toggles.prefix(30).allSatisfy { $0.status == 200 })
        #expect(toggles.last?.isError(429, "Zu viele Anfragen — bitte kurz warten.") == true, "\(toggles.last.map(String.init(describing:)) ?? "")")
        for number in 2...11 { #expect(try party.add(number, device: "busy").status == 200) }
        #expect(try party.add(12, device: "busy").isError(429, "Zu viele Anfragen — bitte kurz warten."), "R11: the 11th add in a minute")
        let other = try TestParty(party.server)
        #expect(try other.add(12, device: "busy").status == 200, "R11 counts in each party")
    }

    /// The original clients send no device id: the client address stands for the device (R11: 10 adds a minute per
    /// party), the one a trusted proxy names in `X-Forwarded-For`.
    @Test func addsWithoutADeviceIdAreLimitedPerPartyAndPerForwardedClient() throws {
        let server = try InProcessServer { $0.trustedProxies = ["127.0.0.1"] }
        let first = try TestParty(server)
        let second = try TestParty(server)
        func add(_ party: TestParty, _ number: Int, forwardedFor client: String) throws -> HTTPResponse {
            try server.client.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)"],
                                   headers: ["X-Forwarded-For": client])
        }
        let replies = try (1...11).map { try add(first, $0, forwardedFor: "198.51.100.7") }
        #expect(replies.prefix(10).allSatisfy { $0.status == 200 }, "\(replies.map(\.status))")
        #expect(replies.last?.isError(429, "Zu viele Anfragen — bitte kurz warten.") == true, "the 11th add from one client is refused")
        #expect(try add(first, 22, forwardedFor: "198.51.100.8").status == 200, "another guest behind the same proxy has their own")
        #expect(try add(second, 1, forwardedFor: "198.51.100.7").status == 200, "and the limit is per party")
    }

    /// A trusted proxy's `X-Forwarded-For` that cannot be read as far as the client (over 1 KiB, an entry that is no
    /// address) is refused: read as "the proxy is the client", it would spend the budget every guest behind the
    /// proxy shares, and give whoever wrote it a budget of the proxy's own.
    @Test func anUnreadableForwardedForFromATrustedProxyIsRefused() throws {
        let server = try InProcessServer { $0.trustedProxies = ["127.0.0.1"] }
        let party = try TestParty(server)
        func add(_ number: Int, forwardedFor header: String, from source: String = "127.0.0.1") throws -> HTTPResponse {
            try server.client.from(source).send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)"],
                                                headers: ["X-Forwarded-For": header])
        }
        let long = Array(repeating: "198.51.100.7", count: 80).joined(separator: ", ")
        #expect(long.utf8.count > 1_024)
        for header in [long, "not-an-address", "198.51.100.7, not-an-address", "198.51.100.7,", "", " , "] {
            let reply = try add(1, forwardedFor: header)
            #expect(reply.isError(400, "Ungültige Anfrage.") && reply.code == "malformed_request", "\(header.prefix(40)): \(reply)")
        }
        #expect(try party.queue().isEmpty, "nothing refused was added")
        // Read as far as the client, it is the client: whatever a guest wrote to the left of it is theirs to write.
        #expect(try add(2, forwardedFor: "not-an-address, 198.51.100.8").status == 200)
        #expect(try add(3, forwardedFor: "198.51.100.9, 127.0.0.1").status == 200, "a chain of trusted proxies ends at the client")
        // From a peer that is no trusted proxy the header is nobody's word: the peer is the client, as before.
        #expect(try add(4, forwardedFor: long, from: "192.0.2.44").status == 200)
        #expect(try server.client.get("/healthz").status == 200, "the proxy's own requests carry no header and stay its own")
    }
}
