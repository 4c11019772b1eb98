import Foundation
import PartyCore

/// Where the guards' counts live: this instance's memory (`LocalLimits`), or the database several instances share,
/// so a guess counts the same on every instance. PartyCore holds the rules and decides; a counter keeps counts.
/// Owned by `PartyState` (its lock serializes the calls).
public protocol LimitCounter: Sendable {
    /// Seconds until `key` may act once more under `rule`, or nil when it may now.
    func retryAfter(_ rule: LimitRule, key: String, at now: Date) -> Int?
    mutating func record(_ rule: LimitRule, key: String, count: Int, at now: Date)
    /// The events of `key` in `rule`'s current window.
    func count(_ rule: LimitRule, key: String, at now: Date) -> Int

    /// Who a guest is: counts one new guest of the party under every ration (`GuestLimits.rations`), or none.
    mutating func admitNewGuest(party: String, address: String, at now: Date) throws(PartyError)
    /// The rations scale with the operator's `--max-new-guests-per-network` (0: none).
    mutating func setNewGuestsPerNetwork(_ limit: Int)
    /// Whether new guests are counted against rations (false: `--max-new-guests-per-network 0`).
    var countsNewGuests: Bool { get }
    /// R11: throws when `count` more adds do not fit; `recordAdds` counts those that went in.
    func checkAdds(_ count: Int, device: String, party: String, at now: Date) throws(PartyError)
    mutating func recordAdds(_ count: Int, device: String, party: String, at now: Date)
    /// R18b: the add budget, read without spending any.
    func addBudget(device: String, party: String, at now: Date) -> AddBudget
    /// R17/R17a: a like or veto under the state lock, one instance alone (several count it in the write's transaction:
    /// `PartyWriters.admitLike`).
    mutating func admitLike(device: String, party: String, at now: Date) throws(PartyError)

    /// R24/R24a: why a secret of `scope` is not checked for `address` now (`SecretGuard`).
    func secretRefusal(address: String, scope: String, proven: Bool, lifetimeFailures: Int, at now: Date) -> SecretGuard.Refusal?
    /// Counts a wrong secret; true when it put the scope under attack.
    mutating func recordSecretFailure(address: String, scope: String, at now: Date) -> Bool
    func secretFailures(scope: String, at now: Date) -> Int
    /// Runs `body` while no other instance runs one for `key`: a check, what it guards and the failure it counts
    /// take turns, so guesses at once on several instances get no more than one instance allows.
    func serialized<T>(_ key: String, _ body: () throws -> T) throws -> T
    /// Drops counts that left every window.
    mutating func prune(at now: Date)
}

/// The counts of one instance alone, in memory: PartyCore's windows, one per rule. Its own lock (the caller's) is
/// all that takes turns.
struct LocalLimits: LimitCounter {
    private var guests = GuestLimits()
    private var secrets = SecretGuard()
    private var windows: [LimitRule: SlidingWindowLimiter] = [:]

    func retryAfter(_ rule: LimitRule, key: String, at now: Date) -> Int? {
        windows[rule]?.retryAfter(key: key, at: now)
    }

    mutating func record(_ rule: LimitRule, key: String, count: Int, at now: Date) {
        windows[rule, default: SlidingWindowLimiter(rule)].record(key: key, at: now, count: count)
    }

    func count(_ rule: LimitRule, key: String, at now: Date) -> Int { windows[rule]?.count(key: key, at: now) ?? 0 }

    mutating func admitNewGuest(party: String, address: String, at now: Date) throws(PartyError) {
        try guests.admitNewGuest(party: party, address: address, at: now)
    }

    mutating func setNewGuestsPerNetwork(_ limit: Int) {
        guests = GuestLimits(newGuestsPerNetwork: limit)
        countsNewGuests = limit != 0
    }

    private(set) var countsNewGuests = true

    func checkAdds(_ count: Int, device: String, party: String, at now: Date) throws(PartyError) {
        try guests.checkAdds(count, device: device, party: party, at: now)
    }

    mutating func recordAdds(_ count: Int, device: String, party: String, at now: Date) {
        guests.recordAdds(count, device: device, party: party, at: now)
    }

    func addBudget(device: String, party: String, at now: Date) -> AddBudget { guests.addBudget(device: device, party: party, at: now) }

    mutating func admitLike(device: String, party: String, at now: Date) throws(PartyError) {
        try guests.admitLike(device: device, party: party, at: now)
    }

    func secretRefusal(address: String, scope: String, proven: Bool, lifetimeFailures: Int, at now: Date) -> SecretGuard.Refusal? {
        secrets.refusal(address: address, scope: scope, proven: proven, lifetimeFailures: lifetimeFailures, at: now)
    }

    mutating func recordSecretFailure(address: String, scope: String, at now: Date) -> Bool {
        secrets.recordFailure(address: address, scope: scope, at: now)
    }

    func secretFailures(scope: String, at now: Date) -> Int { secrets.failures(scope: scope, at: now) }

    func serialized<T>(_ key: String, _ body: () throws -> T) throws -> T { try body() }

    /// Each window prunes itself as it records.
    mutating func prune(at now: Date) {}
}

/// The TVs waiting to be paired by a host's phone (`TVPairings`): this instance's, or the database's.
public protocol PairingRegistry: Sendable {
    /// Runs `body` on the pairings, none of which another instance changes meanwhile; keeps what `body` changed
    /// (also when it throws).
    mutating func withPairings<T>(at now: Date, _ body: (inout TVPairings) throws -> T) throws -> T
}

/// One instance's pairings, in memory.
struct LocalPairings: PairingRegistry {
    private var pairings = TVPairings()

    mutating func withPairings<T>(at now: Date, _ body: (inout TVPairings) throws -> T) throws -> T { try body(&pairings) }
}
