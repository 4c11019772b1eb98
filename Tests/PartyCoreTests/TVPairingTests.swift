import Foundation
import PartyCore
import TestSupport
import Testing

@Suite("A TV pairs by a code it shows and the host claims")
struct TVPairingTests {
    @Test func aClaimedCodeHandsTheTVItsPartyOnceAndOnlyByItsSecret() throws {
        var pairings = TVPairings()
        var random = SplitMix64(state: 7)
        let pairing = try #require(pairings.open(secret: "tv-secret", network: "net", at: epoch, using: &random))
        #expect(TVPairings.isWellFormed(pairing.code))
        let waiting = pairings.status(secret: "tv-secret", at: epoch)
        #expect(waiting == .waiting(expiresAt: epoch.addingTimeInterval(600)))
        let byCode = pairings.status(secret: pairing.code, at: epoch)
        #expect(byCode == .unknown, "the code shown to the room is not the secret")
        let wrong = pairings.claim(code: pairing.code == "000000" ? "000001" : "000000", partyId: "p", monitorToken: "t", at: epoch)
        let right = pairings.claim(code: pairing.code, partyId: "p", monitorToken: "t", at: epoch)
        let again = pairings.claim(code: pairing.code, partyId: "q", monitorToken: "u", at: epoch)
        #expect(!wrong && right)
        #expect(!again, "a claimed code cannot be claimed again")
        #expect(pairings.waiting(code: pairing.code, at: epoch) == nil)
        let paired = pairings.status(secret: "tv-secret", at: epoch)
        #expect(paired == .paired(TVPairings.Claim(partyId: "p", monitorToken: "t")))
        let afterwards = pairings.status(secret: "tv-secret", at: epoch)
        #expect(afterwards == .unknown, "the token is handed out once")
        #expect(pairings.count == 0)
    }

    @Test func aCodeExpiresAfterTenMinutes() throws {
        var pairings = TVPairings()
        var random = SplitMix64(state: 8)
        let pairing = try #require(pairings.open(secret: "s", network: "net", at: epoch, using: &random))
        let later = epoch.addingTimeInterval(600)
        let claimed = pairings.claim(code: pairing.code, partyId: "p", monitorToken: "t", at: later)
        let status = pairings.status(secret: "s", at: later)
        #expect(!claimed && status == .unknown)
    }

    @Test func waitingPairingsAreBoundedAndCodesNeverRepeatAmongThem() throws {
        var pairings = TVPairings(capacity: 3)
        var random = SplitMix64(state: 9)
        var codes: [String] = []
        for index in 0..<3 { codes.append(try #require(pairings.open(secret: "s\(index)", network: "net", at: epoch, using: &random)).code) }
        #expect(Set(codes).count == 3)
        let flood = pairings.open(secret: "s3", network: "net", at: epoch, using: &random)
        #expect(flood == nil, "a flood is refused, not stored")
        let later = pairings.open(secret: "s3", network: "net", at: epoch.addingTimeInterval(601), using: &random)
        #expect(later != nil, "expired ones make room")
    }
}

@Suite("A flood of pairings cannot keep a real TV from pairing")
struct TVPairingFloodTests {
    @Test func oneNetworkHoldsAtMostItsShare() throws {
        var pairings = TVPairings(capacity: 100, perNetwork: 3)
        var random = SplitMix64(state: 11)
        for index in 0..<3 { #expect(pairings.open(secret: "a\(index)", network: "attacker", at: epoch, using: &random) != nil) }
        #expect(pairings.open(secret: "a3", network: "attacker", at: epoch, using: &random) == nil)
        #expect(pairings.open(secret: "tv", network: "living-room", at: epoch, using: &random) != nil)
    }

    @Test func whenEverySlotIsTakenARealTVTakesTheOldestOfTheLargestHolder() throws {
        var pairings = TVPairings(capacity: 6, perNetwork: 3)
        var random = SplitMix64(state: 12)
        for index in 0..<6 {
            let at = epoch.addingTimeInterval(Double(index))
            #expect(pairings.open(secret: "f\(index)", network: "flood\(index / 3)", at: at, using: &random) != nil)
        }
        let tv = pairings.open(secret: "tv", network: "living-room", at: epoch.addingTimeInterval(10), using: &random)
        #expect(tv != nil && pairings.count == 6)
        #expect(pairings.status(secret: "f0", at: epoch.addingTimeInterval(10)) == .unknown, "the oldest of a largest holder went")
        // Two networks with one pairing each: neither takes the other's.
        var even = TVPairings(capacity: 2, perNetwork: 3)
        #expect(even.open(secret: "x", network: "x", at: epoch, using: &random) != nil)
        #expect(even.open(secret: "y", network: "y", at: epoch, using: &random) != nil)
        #expect(even.open(secret: "z", network: "z", at: epoch, using: &random) == nil)
    }
}
