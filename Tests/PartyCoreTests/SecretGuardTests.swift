import Foundation
import PartyCore
import Testing

@Suite("R24, R24a one budget for every secret check")
struct SecretGuardTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func moreThanTenWrongSecretsLockTheAddressForThatPartyUntilTheMinuteIsOver() {
        var guardian = SecretGuard()
        for _ in 0..<10 {
            #expect(guardian.retryAfter(address: "a", scope: "p", at: start) == nil)
            guardian.recordFailure(address: "a", scope: "p", at: start)
        }
        #expect(guardian.retryAfter(address: "a", scope: "p", at: start) == 60)
        #expect(guardian.retryAfter(address: "a", scope: "q", at: start) == nil, "another party is another budget")
        #expect(guardian.retryAfter(address: "b", scope: "p", at: start) == nil, "another address is not locked")
        #expect(guardian.retryAfter(address: "a", scope: "p", at: start.addingTimeInterval(60)) == nil)
    }

    @Test func aSweepFromManyAddressesSlowsEachFailedAddressWithGrowingDelays() {
        var guardian = SecretGuard()
        var began = 0
        for index in 0..<29 where guardian.recordFailure(address: "phone\(index)", scope: "p", at: start) { began += 1 }
        #expect(guardian.delay(scope: "p", at: start) == 0 && began == 0)
        let startsAttack = guardian.recordFailure(address: "phone29", scope: "p", at: start)
        #expect(startsAttack, "the 30th failure starts the attack, once")
        #expect(guardian.delay(scope: "p", at: start) == 2)
        #expect(guardian.retryAfter(address: "phone29", scope: "p", at: start) == 2)
        #expect(guardian.retryAfter(address: "phone29", scope: "p", at: start.addingTimeInterval(2.5)) == nil)
        #expect(guardian.retryAfter(address: "host", scope: "p", at: start) == nil, "an address that never failed is never slowed")
        for index in 0..<60 { guardian.recordFailure(address: "more\(index)", scope: "p", at: start.addingTimeInterval(1)) }
        #expect(guardian.delay(scope: "p", at: start.addingTimeInterval(1)) == 8, "90 failures: the delay doubled twice")
        let startsAgain = guardian.recordFailure(address: "x", scope: "p", at: start.addingTimeInterval(1))
        #expect(!startsAgain, "told once per attack")
        #expect(guardian.delay(scope: "p", at: start.addingTimeInterval(61)) == 0, "the attack ends with its minute")
    }
}
