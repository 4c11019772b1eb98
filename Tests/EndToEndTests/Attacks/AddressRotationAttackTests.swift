import Foundation
import PartyTestSupport
import Testing

/// Limits that hold when the attacker has many addresses.
@Suite("Attack: many addresses against the host PIN and party creation", .alsoOnRoundRobinCluster)
struct AddressRotationAttackTests {
    @Test func aNewNetworkForEveryGuessGetsThirtyEvaluatedGuessesAMinuteAndNoMore() throws {
        let party = try TestParty.given()
        var statuses: [Int: Int] = [:]
        for guess in 0..<120 {
            let attacker = party.client.from("127.\(guess / 200 + 10).\(guess % 200).1")
            let status = try attacker.send("GET", "\(party.base)/blacklist", auth: PinOracleAttackTests.wrong(party.hostPin, guess)).status
            statuses[status, default: 0] += 1
        }
        #expect(statuses[403] == 30, "evaluated guesses: \(statuses)")
        #expect(statuses[429] == 90)
        #expect(try party.client.from(party.creatorAddress).send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 200,
                "the host who proved the PIN is never locked out by the sweep")
    }

    @Test func anIPv6PhoneRotatingItsAddressWithinItsSlash64IsOneClient() throws {
        let server = try ServerProcess(arguments: ["--trusted-proxy", "127.0.0.1"])
        defer { server.stop() }
        let party = try TestParty(server)
        var statuses: [Int] = []
        for guess in 0..<12 {
            let rotated = "2001:db8:5:\(String(guess + 0x100, radix: 16))::7"
            statuses.append(try party.client.send("GET", "\(party.base)/blacklist", auth: PinOracleAttackTests.wrong(party.hostPin, guess),
                                                  headers: ["X-Forwarded-For": rotated]).status)
        }
        // Different /64s: these are different phones, each with its own budget.
        #expect(statuses.allSatisfy { $0 == 403 })
        statuses = []
        for guess in 0..<12 {
            let rotated = "2001:db8:5:7::\(String(guess + 1, radix: 16))"
            statuses.append(try party.client.send("GET", "\(party.base)/blacklist", auth: PinOracleAttackTests.wrong(party.hostPin, 20 + guess),
                                                  headers: ["X-Forwarded-For": rotated]).status)
        }
        #expect(Array(statuses.prefix(10)) == Array(repeating: 403, count: 10) && statuses.suffix(2).allSatisfy { $0 == 429 },
                "one /64 is one phone, whatever address it rotates to: \(statuses)")
        let sameNetworkRightPin = try party.client.send("GET", "\(party.base)/blacklist", auth: party.hostPin,
                                                        headers: ["X-Forwarded-For": "2001:db8:5:7:ffff::1"])
        #expect(sameNetworkRightPin.status == 429, "and the right PIN reveals nothing there")
    }

    @Test func aCreationFloodFromAFewAddressesCannotLockOutAHostElsewhere() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        var refused = 0
        for attempt in 0..<80 {
            let response = try server.client.from("127.0.77.\(attempt % 6 + 1)").send("POST", "/api/party", json: ["provider": "demo"])
            if response.status == 429 { refused += 1 } else { #expect(response.status == 201) }
        }
        #expect(refused == 60, "six addresses of one network create 20 parties a minute, no more")
        let elsewhere = try server.client.from("127.0.78.1").send("POST", "/api/party", json: ["provider": "demo"])
        #expect(elsewhere.status == 201, "a host on another network is not locked out")
    }

    @Test func aReplacedTVThatKeepsCallingNeitherLocksItsAddressOutNorKeepsPlaying() throws {
        let party = try TestParty.given()
        let sharedAddress = party.client.from("127.0.0.1")
        var tokens: [String] = []
        for index in 0..<3 { tokens.append(try party.registerMonitor(device: "tv-\(index)")) }
        // The first two TVs keep reporting with their old tokens, from the host's own address.
        for _ in 0..<15 {
            for old in tokens.prefix(2) {
                let report = try sharedAddress.send("POST", "\(party.base)/track/progress",
                                                    json: ["position": 0, "duration": 0, "paused": true], auth: old)
                #expect(report.status == 403 && report.json["code"] as? String == "monitor_replaced", "the old TV is told it was replaced")
            }
        }
        #expect(try party.host("GET", "/blacklist").status == 200, "the host on the same address is not locked out")
        let current = try sharedAddress.send("POST", "\(party.base)/track/progress",
                                             json: ["position": 0, "duration": 0, "paused": true], auth: tokens[2])
        #expect(current.status == 204)
    }
}
