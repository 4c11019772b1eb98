import Foundation
import PartyTestSupport
import Testing

/// R24, R24a, R25: the host PIN cannot be guessed, from one address or from many.
@Suite("Attack: the host PIN cannot be guessed", .alsoOnRoundRobinCluster)
struct PinOracleAttackTests {
    /// A wrong PIN that is not the party's, different from `right`.
    static func wrong(_ right: String, _ index: Int) -> String {
        let pin = String(format: "%05d", (Int(right)! + 1 + index) % 100_000)
        return pin == right ? "00000" : pin
    }

    /// Every place a secret is checked, as a request carrying `secret`; `accepts` says whether the answer
    /// shows that the secret was right.
    static func entryPoints(_ party: TestParty) -> [(name: String, send: (TestClient, String) throws -> HTTPResponse,
                                                    accepts: (HTTPResponse) -> Bool)] {
        [
            ("GET party with Bearer", { client, secret in try client.send("GET", party.base, auth: secret) },
             { $0.status == 200 && $0.json["hostPin"] != nil }),
            ("blacklist with Bearer", { client, secret in try client.send("GET", "\(party.base)/blacklist", auth: secret) },
             { $0.status == 200 }),
            ("host-join", { client, secret in try client.get("/api/party/host-join/\(secret)") }, { $0.status == 200 }),
            ("monitor pairing", { client, secret in
                try client.send("PUT", "\(party.base)/device", json: ["deviceId": "tv-x", "kind": "monitor"], auth: secret)
            }, { $0.status == 200 }),
            ("spotify login ?hostPin=", { client, secret in try client.get("\(party.base)/spotify/login?hostPin=\(secret)") },
             { $0.status != 403 && $0.status != 429 }),
        ]
    }

    @Test func tenWrongPinsLockTheAddressOutOfEveryEntryPointEvenForTheRightPin() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let first = try TestParty(server)
        // host-join searches every party: a guess that is another party's host PIN (random PINs: a few runs in 10,000)
        // would be right there.
        var hostPins: Set = [first.hostPin]
        for index in Self.entryPoints(first).indices {
            // A party of its own per entry point: 10 failures each, below the party's budget of 30.
            let party = try TestParty(server)
            hostPins.insert(party.hostPin)
            let entry = Self.entryPoints(party)[index]
            let attacker = server.client.from("127.0.0.\(10 + index)")
            #expect(entry.accepts(try entry.send(attacker, party.hostPin)), "\(entry.name): the right PIN works at first")
            let guesses = (0..<40).map { Self.wrong(party.hostPin, $0) }.filter { !hostPins.contains($0) }.prefix(10)
            for (guess, pin) in guesses.enumerated() {
                let response = try entry.send(attacker, pin)
                #expect(!entry.accepts(response) && response.status != 429, "\(entry.name) guess \(guess) → \(response.status)")
            }
            let right = try entry.send(attacker, party.hostPin)
            #expect(right.status == 429 && right.header("retry-after") != nil, "\(entry.name): over the budget → \(right.status)")
            #expect(right.status == 429 && right.error != nil && !right.text.contains(party.hostPin),
                    "\(entry.name): the right PIN reveals nothing: \(right)")
            let otherPhone = server.client.from("127.0.0.\(100 + index)")
            #expect(entry.accepts(try entry.send(otherPhone, party.hostPin)), "\(entry.name): another address is not locked out")
        }
    }

    @Test func wrongMonitorTokensOnTheEventStreamCountToo() throws {
        // Closed streams are noticed at the next keepalive; this test is about tokens, not the stream cap.
        let server = try ServerProcess(arguments: ["--max-streams-per-address", "0"])
        defer { server.stop() }
        let party = try TestParty(server)
        let attacker = server.client.from("127.0.0.20")
        for guess in 0..<10 {
            let stream = try SSEClient(port: server.port, path: "\(party.base)/events?monitorToken=guess\(guess)", source: "127.0.0.20")
            #expect(stream.status == 200, "a wrong token still gets a guest's stream")
            stream.close()
        }
        #expect(try attacker.send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 429)
    }

    @Test func aSweepFromManyAddressesIsSlowedButTheHostsRightPinStillWorks() throws {
        let party = try TestParty.given()
        let host = try party.events()
        defer { host.close() }
        // 20 phones, 2 guesses each: 40 wrong PINs for the party in a minute, past its budget of 30.
        var slowed = 0
        for phone in 0..<20 {
            let client = party.client.from("127.0.1.\(phone + 1)")
            for guess in 0..<2 {
                let response = try client.send("DELETE", party.base, auth: Self.wrong(party.hostPin, phone * 2 + guess))
                if response.status == 429 { slowed += 1 } else { #expect(response.status == 403) }
            }
        }
        #expect(slowed > 0, "once the party is over its budget, an address that just failed must wait")
        let notice = try host.waitFor("pin-guessing")
        #expect(Int(notice.payload["failures"] as? String ?? "") ?? 0 >= 30, "the host is told")
        let hostPhone = party.client.from(party.creatorAddress)
        #expect(try hostPhone.send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 200,
                "the host's right PIN is not refused because of other clients' failures")
        // A device that never proved the PIN waits while the party is under attack, and is told why.
        let newDevice = try party.client.from("127.0.2.1").send("GET", "\(party.base)/blacklist", auth: party.hostPin)
        #expect(newDevice.status == 429 && newDevice.json["code"] as? String == "pin_guessing")
        #expect((newDevice.error ?? "").contains("schon angemeldet"), "the message says where it still works")
        let again = try party.client.from("127.0.1.1").send("GET", "\(party.base)/blacklist", auth: Self.wrong(party.hostPin, 99))
        #expect(again.status == 429 && Int(again.header("retry-after") ?? "") ?? 0 >= 1)
    }

    /// Ten wrong PINs, each claiming to come from `forwardedFor(guess)`; then the status of the right PIN
    /// claiming to come from `then`.
    static func rightPinAfterTenWrong(_ party: TestParty, forwardedFor: (Int) -> String, then: String) throws -> Int {
        for guess in 0..<10 {
            _ = try party.client.send("GET", "\(party.base)/blacklist", auth: wrong(party.hostPin, guess),
                                      headers: ["X-Forwarded-For": forwardedFor(guess)])
        }
        return try party.client.send("GET", "\(party.base)/blacklist", auth: party.hostPin, headers: ["X-Forwarded-For": then]).status
    }

    @Test func xForwardedForIsBelievedOnlyFromATrustedProxy() throws {
        let direct = try ServerProcess()
        defer { direct.stop() }
        #expect(try Self.rightPinAfterTenWrong(TestParty(direct), forwardedFor: { "10.9.8.\($0)" }, then: "10.9.9.9") == 429,
                "a spoofed header from an untrusted peer does not reset the budget")

        let proxied = try ServerProcess(arguments: ["--trusted-proxy", "127.0.0.1"])
        defer { proxied.stop() }
        let behindProxy = try TestParty(proxied)
        #expect(try Self.rightPinAfterTenWrong(behindProxy, forwardedFor: { _ in "192.0.2.7" }, then: "192.0.2.7") == 429,
                "the guesser behind the proxy is locked")
        #expect(try behindProxy.client.send("GET", "\(behindProxy.base)/blacklist", auth: behindProxy.hostPin,
                                            headers: ["X-Forwarded-For": "192.0.2.8"]).status == 200,
                "the host behind the same proxy is a different client")
    }
}
