import Foundation
import PartyCore
import Testing
@testable import MusicVotingServer
@testable import PartyEngine

/// R24a: at most 999 wrong host PINs are ever evaluated for a party, whatever the number of addresses and
/// however slowly they come; the count survives a restart. `host-join` counts apart for every party it could hit,
/// never from a party's own budget.
@Suite("R24a a party's lifetime budget of wrong host PINs")
struct PinLifetimeBudgetTests {
    static func wrong(_ right: String, _ index: Int) -> String {
        let pin = String(format: "%05d", (Int(right)! + 1 + index) % 100_000)
        return pin == right ? String(format: "%05d", (Int(right)! + 50_000) % 100_000) : pin
    }

    @Test func aSlowSweepFromEverAnotherNetworkStopsAt999AndOnlyProvenClientsGetIn() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-pins-\(UUID().uuidString)").path
        let party: Party
        do {
            let application = try Application(configuration: configuration, clock: clock)
            let service = application.service
            party = try service.createParty(provider: "demo", clientAddress: "192.168.7.10")
            var evaluated = 0
            // One guess every 2.5 s (24 a minute, under the per-minute budget), each from a network of its own.
            for index in 0..<1_100 {
                clock.advance(by: 2.5)
                let address = "10.\(index / 200).\(index % 200).9"
                do {
                    try service.authorize(Credential(token: Self.wrong(party.hostPin, index), clientAddress: address), partyId: party.id)
                    Issue.record("a wrong PIN was accepted")
                } catch PartyError.hostPinWrong {
                    evaluated += 1
                } catch PartyError.pinChecksExhausted {
                }
            }
            #expect(evaluated == SecretGuard.lifetimeLimit)
            #expect(throws: PartyError.pinChecksExhausted, "a device that never proved the PIN, even with the right one") {
                try service.authorize(Credential(token: party.hostPin, clientAddress: "172.16.0.1"), partyId: party.id)
            }
            #expect(try service.authorize(Credential(token: party.hostPin, clientAddress: "192.168.7.10"), partyId: party.id).1 == .host,
                    "the phone that created the party still gets in")
            application.stop()
        }
        // A restart keeps the count: the sweep does not start over.
        let restarted = try Application(configuration: configuration, clock: clock)
        defer { restarted.stop() }
        #expect(throws: PartyError.pinChecksExhausted) {
            try restarted.service.authorize(Credential(token: Self.wrong(party.hostPin, 5_000), clientAddress: "172.16.0.2"), partyId: party.id)
        }
    }

    @Test func wrongHostJoinPinsNeverSpendAPartysOwnBudgetAndOnlyHideItFromHostJoin() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-pins-\(UUID().uuidString)").path
        let application = try Application(configuration: configuration, clock: clock)
        defer { application.stop() }
        let service = application.service
        let parties = try (0..<3).map { try service.createParty(provider: "demo", clientAddress: "192.168.\($0).1") }
        let taken = Set(parties.flatMap { [$0.hostPin, $0.guestPin] })
        let guesses = Array((0..<100_000).lazy.map { String(format: "%05d", $0) }.filter { !taken.contains($0) }.prefix(1_100))
        var evaluated = 0
        // A slow sweep through host-join, a network of its own per guess.
        for (index, guess) in guesses.enumerated() {
            clock.advance(by: 2.5)
            do {
                _ = try service.hostJoin(hostPin: guess, clientAddress: "10.\(index / 200).\(index % 200).1")
                Issue.record("a wrong PIN found a party")
            } catch PartyError.partyNotFound {
                evaluated += 1
            }
        }
        #expect(evaluated == guesses.count)
        for party in parties {
            let stored = try #require(try service.withState { try $0.store.party(id: party.id) })
            #expect(stored.wrongPinChecks == 0 && stored.hostJoinMisses == guesses.count)
        }
        #expect(throws: PartyError.partyNotFound, "host-join no longer finds a party its sweep was exposed to") {
            try service.hostJoin(hostPin: parties[1].hostPin, clientAddress: "172.16.0.1")
        }
        #expect(try service.hostJoin(hostPin: parties[1].hostPin, clientAddress: "192.168.1.1").id == parties[1].id,
                "the phone that created it still finds it")
        #expect(try service.authorize(Credential(token: parties[2].hostPin, clientAddress: "172.16.0.1"), partyId: parties[2].id).1 == .host,
                "the party's own routes still take its PIN from a device that never proved it")
        let rotated = try service.rotateHostPin(of: parties[0], clientAddress: "192.168.0.1")
        #expect(try service.hostJoin(hostPin: rotated.hostPin, clientAddress: "172.16.0.2").id == parties[0].id, "a new PIN starts over")
    }
}
