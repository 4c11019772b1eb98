import Foundation
import TestSupport
import Testing
@testable import PartyCore

@Suite("R11, R24, R27 sliding windows")
struct SlidingWindowTests {
    @Test func theEleventhAddWithinAMinuteIsRefusedWithRetryAfter() {
        var limiter = SlidingWindowLimiter(limit: 10)
        for second in 0..<10 {
            #expect(limiter.retryAfter(key: "phone", at: epoch.addingTimeInterval(Double(second))) == nil)
            limiter.record(key: "phone", at: epoch.addingTimeInterval(Double(second)))
        }
        #expect(limiter.retryAfter(key: "phone", at: epoch.addingTimeInterval(30)) == 30)
        #expect(limiter.retryAfter(key: "other", at: epoch.addingTimeInterval(30)) == nil, "limits are per key")
    }

    @Test func theWindowRollsRatherThanResettingEachMinute() {
        var limiter = SlidingWindowLimiter(limit: 10)
        limiter.record(key: "phone", at: epoch, count: 5)
        limiter.record(key: "phone", at: epoch.addingTimeInterval(50), count: 5)
        #expect(limiter.retryAfter(key: "phone", at: epoch.addingTimeInterval(59)) != nil)
        #expect(limiter.remaining(key: "phone", at: epoch.addingTimeInterval(60)) == 5)
        #expect(limiter.remaining(key: "phone", at: epoch.addingTimeInterval(110)) == 10)
    }

    /// R17: the 31st like of a guest within a minute is refused with the wait, a refused like is not counted, each
    /// party is its own budget, and the window still rolls.
    @Test func aGuestLikesThirtyTimesAMinuteInEachParty() throws {
        var limits = GuestLimits()
        for second in 0..<GuestLimits.likesPerDevice {
            try limits.admitLike(device: "phone", party: "p", at: epoch.addingTimeInterval(Double(second)))
        }
        #expect(throws: PartyError.rateLimited(retryAfterSeconds: 30)) {
            try limits.admitLike(device: "phone", party: "p", at: epoch.addingTimeInterval(30))
        }
        try limits.admitLike(device: "phone", party: "other", at: epoch.addingTimeInterval(30))
        try limits.admitLike(device: "tablet", party: "p", at: epoch.addingTimeInterval(31))
        // A minute after its first likes left the window, the first device likes again.
        try limits.admitLike(device: "phone", party: "p", at: epoch.addingTimeInterval(60))
    }

    /// Who a guest is: new identities are rationed per network and per party, so a crowd scanning the QR code gets in
    /// (from one NAT address too) while a thousand made-up identities take most of an hour.
    @Test func newGuestsAreRationedPerNetworkAndPerParty() throws {
        var limits = GuestLimits()
        for _ in 0..<GuestLimits.newGuestsPerNetwork { try limits.admitNewGuest(party: "p", address: "10.0.0.1", at: epoch) }
        #expect(throws: PartyError.tooManyNewGuests(retryAfterSeconds: 60)) { try limits.admitNewGuest(party: "p", address: "10.0.0.77", at: epoch) }
        try limits.admitNewGuest(party: "other", address: "10.0.0.1", at: epoch)
        try limits.admitNewGuest(party: "p", address: "10.0.1.1", at: epoch)
        // IPv6: every address of one /64 is one network.
        for index in 0..<GuestLimits.newGuestsPerNetwork { try limits.admitNewGuest(party: "p", address: "2001:db8:1:2::\(index + 1)", at: epoch) }
        #expect(throws: PartyError.self) { try limits.admitNewGuest(party: "p", address: "2001:db8:1:2:ffff::1", at: epoch) }
        // Ten minutes of a network's 250 addresses: 200 identities, then the wait.
        var admitted = 0
        for minute in 0..<10 {
            for index in 0..<250 where (try? limits.admitNewGuest(party: "q", address: "192.168.5.\(index)", at: epoch.addingTimeInterval(Double(minute * 60)))) != nil {
                admitted += 1
            }
        }
        #expect(admitted == GuestLimits.newGuestsPerNetworkInTenMinutes)
        // The party's own ration: 600 in ten minutes from however many networks.
        var party = 0
        for network in 0..<40 {
            for index in 0..<30 where (try? limits.admitNewGuest(party: "r", address: "172.16.\(network).\(index)", at: epoch)) != nil { party += 1 }
        }
        #expect(party == GuestLimits.newGuestsPerPartyInTenMinutes)
    }

    /// `--max-new-guests-per-network`: the ration scales with it (the ten-minute figure too); 0 admits everyone
    /// (a load generator's phones).
    @Test func theRationOfNewGuestsIsConfigured() throws {
        var none = GuestLimits(newGuestsPerNetwork: 0)
        for index in 0..<1_000 { try none.admitNewGuest(party: "p", address: "10.0.0.\(index % 250)", at: epoch) }
        var small = GuestLimits(newGuestsPerNetwork: 6)
        var admitted = 0
        for minute in 0..<10 {
            for _ in 0..<10 where (try? small.admitNewGuest(party: "p", address: "10.0.0.1", at: epoch.addingTimeInterval(Double(minute * 60)))) != nil {
                admitted += 1
            }
        }
        #expect(admitted == 20, "6 a minute, 20 in ten minutes")
    }

    /// A key's stamps kept inline while there is one, in a list from two: counts, waits and take-backs agree
    /// across the change in both directions.
    @Test func aKeyCountsTheSameWithOneStampAndWithMany() {
        var stamps = WindowStamps()
        stamps.append(epoch)
        #expect(stamps.count == 1 && stamps.oldest == epoch && stamps.live(at: epoch.addingTimeInterval(59), window: 60) == 1)
        stamps.append(epoch.addingTimeInterval(10), count: 2)
        #expect(stamps.count == 3 && stamps.oldestLive(at: epoch.addingTimeInterval(30), window: 60) == epoch)
        stamps.removeExpired(at: epoch.addingTimeInterval(65), window: 60)
        #expect(stamps.count == 2 && stamps.oldest == epoch.addingTimeInterval(10))
        stamps.removeLast()
        #expect(stamps.count == 1 && stamps.live(at: epoch.addingTimeInterval(65), window: 60) == 1)
        stamps.removeLast()
        #expect(stamps.count == 0 && stamps.oldest == nil && stamps.oldestLive(at: epoch, window: 60) == nil)
        stamps.append(epoch, count: 0)
        #expect(stamps.count == 0)

        var limiter = SlidingWindowLimiter(limit: 2)
        #expect(limiter.take(key: "phone", at: epoch) == nil && limiter.take(key: "phone", at: epoch.addingTimeInterval(5)) == nil)
        #expect(limiter.take(key: "phone", at: epoch.addingTimeInterval(6)) == 54, "the oldest of two stamps sets the wait")
        #expect(limiter.take(key: "tablet", at: epoch.addingTimeInterval(7)) == nil)
        #expect(limiter.remaining(key: "tablet", at: epoch.addingTimeInterval(8)) == 1)
        #expect(limiter.remaining(key: "phone", at: epoch.addingTimeInterval(61)) == 1, "the first stamp expired")
        #expect(limiter.take(key: "phone", at: epoch.addingTimeInterval(61)) == nil)
        #expect(limiter.retryAfter(key: "phone", at: epoch.addingTimeInterval(62)) == 3)
    }

    @Test func pruningForgetsIdleKeysSoMemoryStaysBounded() {
        var limiter = SlidingWindowLimiter(limit: 30)
        for index in 0..<100 { limiter.record(key: "address\(index)", at: epoch) }
        limiter.record(key: "address7", at: epoch.addingTimeInterval(30), count: 2)
        limiter.prune(at: epoch.addingTimeInterval(61))
        #expect(limiter.trackedKeys == 1, "a key with a stamp still in the window stays")
        #expect(limiter.remaining(key: "address7", at: epoch.addingTimeInterval(61)) == 28, "its stamps that left do not count")
        limiter.prune(at: epoch.addingTimeInterval(91))
        #expect(limiter.trackedKeys == 0)
    }

    /// A key a record (a new device per like) keeps fewer than twice the live keys (+1,024) without a
    /// prune on every record: 20,000 keys over 200 s, 6,000 of them in any minute.
    @Test func recordsPruneByThemselvesInProportionToTheKeysHeld() {
        var limiter = SlidingWindowLimiter(limit: 30)
        var most = 0
        for index in 0..<20_000 {
            limiter.record(key: "device\(index)", at: epoch.addingTimeInterval(Double(index) / 100))
            most = max(most, limiter.trackedKeys)
        }
        #expect(most <= 2 * 6_000 + 1_024 && most > 6_000, "at most \(most) keys held")
    }
}

@Suite("R2 PINs, R3 ids")
struct PinTests {
    @Test func pinsAreFiveDigitsWithLeadingZerosAllowed() {
        var random = SplitMix64(state: 1)
        let pins = (0..<2000).map { _ in PinGenerator.pin(using: &random) }
        #expect(pins.allSatisfy(PinGenerator.isWellFormed))
        #expect(pins.contains { $0.hasPrefix("0") })
        #expect(Set(pins).count > 1900)
    }

    /// R2: every PIN is drawn from the generator it is given (the app gives a cryptographic one).
    @Test func pinsAreDrawnFromTheInjectedGenerator() throws {
        var counting = CountingGenerator(base: SplitMix64(state: 7))
        var replay = SplitMix64(state: 7)
        let pin = PinGenerator.pin(using: &counting)
        let expected = Int.random(in: 0..<100_000, using: &replay)
        #expect(counting.draws > 0 && Int(pin) == expected, "the PIN is the generator's draw: \(pin), \(expected)")
        let pair = try PinGenerator.pair(using: &counting, isTaken: { _ in false })
        let guest = Int.random(in: 0..<100_000, using: &replay), host = Int.random(in: 0..<100_000, using: &replay)
        #expect(Int(pair.guest) == guest && Int(pair.host) == host)
    }

    @Test func guestAndHostPinsDifferAndAvoidPinsInUse() throws {
        var random = SplitMix64(state: 7)
        var taken: Set<String> = []
        for _ in 0..<500 {
            let pair = try PinGenerator.pair(using: &random, isTaken: { taken.contains($0) })
            #expect(pair.guest != pair.host)
            #expect(!taken.contains(pair.guest) && !taken.contains(pair.host))
            taken.formUnion([pair.guest, pair.host])
        }
    }

    @Test func noUniquePairAfterBoundedRetriesIsAnError() {
        var random = ConstantGenerator(value: 42)
        #expect(throws: PartyError.pinsExhausted) {
            try PinGenerator.pair(using: &random, isTaken: { _ in false })
        }
        var other = SplitMix64(state: 3)
        #expect(throws: PartyError.pinsExhausted) {
            try PinGenerator.pair(using: &other, isTaken: { _ in true })
        }
    }

    @Test func malformedPinsAreRecognised() {
        #expect(!PinGenerator.isWellFormed("1234"))
        #expect(!PinGenerator.isWellFormed("12a45"))
        #expect(!PinGenerator.isWellFormed("١٢٣٤٥"))
    }

    @Test func partyIdsCarry128RandomBits() {
        var random = SplitMix64(state: 9)
        let ids = (0..<100).map { _ in Identifiers.token(using: &random) }
        #expect(ids.allSatisfy(Identifiers.isWellFormedToken))
        #expect(Set(ids).count == 100)
        #expect(!Identifiers.isWellFormedToken("../../etc/passwd"))
    }
}

/// Passes a generator's numbers through and counts them.
struct CountingGenerator<Base: RandomNumberGenerator>: RandomNumberGenerator {
    var base: Base
    var draws = 0
    mutating func next() -> UInt64 {
        draws += 1
        return base.next()
    }
}
