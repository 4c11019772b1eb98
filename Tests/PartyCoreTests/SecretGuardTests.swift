import Foundation
import PartyCore
import Testing
import ClientNetwork

@Suite("R24, R24a one budget for every secret check")
struct SecretGuardTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func moreThanTenWrongSecretsLockTheAddressForThatPartyUntilTheMinuteIsOver() {
        var guardian = SecretGuard()
        for _ in 0..<10 {
            #expect(guardian.refusal(address: "10.0.0.1", scope: "p", at: start) == nil)
            guardian.recordFailure(address: "10.0.0.1", scope: "p", at: start)
        }
        #expect(guardian.refusal(address: "10.0.0.1", scope: "p", at: start) == .ownFailures(retryAfterSeconds: 60))
        #expect(guardian.refusal(address: "10.0.0.1", scope: "q", at: start) == nil, "another party is another budget")
        #expect(guardian.refusal(address: "10.0.9.2", scope: "p", at: start) == nil, "another address is not locked")
        #expect(guardian.refusal(address: "10.0.0.1", scope: "p", at: start.addingTimeInterval(60)) == nil)
    }

    @Test func anIPv6PhoneRotatingThroughItsSlash64IsOneClient() {
        var guardian = SecretGuard()
        for index in 0..<30 { guardian.recordFailure(address: "2001:db8:1:2::\(String(index + 1, radix: 16))", scope: "p", at: start) }
        #expect(guardian.refusal(address: "2001:db8:1:2:ffff::99", scope: "p", at: start) == .ownFailures(retryAfterSeconds: 60),
                "a fresh address of the same /64 is locked")
        #expect(guardian.refusal(address: "2001:db8:1:3::1", scope: "p", at: start) == .underAttack(retryAfterSeconds: 60),
                "the party is under attack; another /64 that never proved the PIN waits")
    }

    @Test func aSweepFromManyAddressesGetsThirtyChecksAMinuteAndNoMore() {
        var guardian = SecretGuard()
        var began = 0
        var evaluated = 0
        // A new address (and network) for every guess.
        for index in 0..<1_000 {
            let address = "10.\(index / 250).\(index % 250).1"
            guard guardian.refusal(address: address, scope: "p", at: start) == nil else { continue }
            evaluated += 1
            if guardian.recordFailure(address: address, scope: "p", at: start) { began += 1 }
        }
        #expect(evaluated == SecretGuard.scopeLimit)
        #expect(began == 1, "the host is told once per attack")
        #expect(guardian.refusal(address: "10.99.0.1", scope: "p", at: start.addingTimeInterval(60)) == nil, "the attack ends with its minute")
    }

    @Test func aClientThatProvedThePinIsNeverHeldBackBySomebodyElsesGuessing() {
        var guardian = SecretGuard()
        for index in 0..<200 { guardian.recordFailure(address: "192.168.1.\(100 + index % 100)", scope: "p", at: start) }
        #expect(guardian.refusal(address: "192.168.1.21", scope: "p", lifetimeFailures: 999, at: start) != nil,
                "a neighbour on the same Wi-Fi proved nothing")
        #expect(guardian.refusal(address: "192.168.1.20", scope: "p", proven: true, lifetimeFailures: 999, at: start) == nil,
                "the host's laptop: network locked, party under attack, lifetime spent, still in")
        for _ in 0..<10 { guardian.recordFailure(address: "192.168.1.20", scope: "p", at: start) }
        #expect(guardian.refusal(address: "192.168.1.20", scope: "p", proven: true, at: start) == .ownFailures(retryAfterSeconds: 60),
                "its own wrong PINs still count")
    }

    @Test func theLifetimeBudgetStopsASweepUnderOnePercentOfThePins() {
        let guardian = SecretGuard()
        #expect(Double(SecretGuard.lifetimeLimit) / 99_999 < 0.01)
        #expect(guardian.refusal(address: "10.0.0.1", scope: "p", lifetimeFailures: SecretGuard.lifetimeLimit - 1, at: start) == nil)
        #expect(guardian.refusal(address: "10.0.0.1", scope: "p", lifetimeFailures: SecretGuard.lifetimeLimit, at: start) == .exhausted)
    }

}

@Suite("One address is not one person")
struct AddressPrefixTests {
    @Test(arguments: [
        ("192.168.1.77", "192.168.1.0/24", "192.168.1.77"),
        ("::ffff:192.168.1.77", "192.168.1.0/24", "192.168.1.77"),
        ("2001:db8:1:2:3:4:5:6", "2001:db8:1:2::/64", "2001:db8:1:2::/64"),
        ("2001:db8::1", "2001:db8:0:0::/64", "2001:db8:0:0::/64"),
        ("::1", "0:0:0:0::/64", "0:0:0:0::/64"),
        ("64:ff9b::10.0.0.1", "64:ff9b:0:0::/64", "64:ff9b:0:0::/64"),
        ("not-an-address", "not-an-address", "not-an-address"),
        ("1.2.3", "1.2.3", "1.2.3"),
        ("1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9", "1:2:3:4:5:6:7:8:9"),
        ("1::2::3", "1::2::3", "1::2::3"),
    ])
    func networksAndDevices(address: String, network: String, device: String) {
        #expect(AddressPrefix.network(of: address) == network)
        #expect(AddressPrefix.device(of: address) == device)
    }
}
