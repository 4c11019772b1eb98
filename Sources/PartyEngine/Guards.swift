import Foundation
import PartyCore

/// Every limit of docs/security.md's table, and the TV pairings waiting to be claimed: what guards the server
/// against guessing and floods. In memory for one instance (SQLite); with `shared` (several instances on
/// one PostgreSQL) the counts, proven clients and pairings live in the database, so a guess counts the same on
/// every instance. A value type that `PartyState` owns.
struct Guards {
    /// The database behind the counts when several instances share them; nil: in memory.
    let shared: (any SharedGuards)?
    /// R11 and likes per guest, and the ration of new guests, in each party.
    var guestLimits: GuestLimits
    /// R24/R24a: every host PIN and monitor token check, per address and party and per party.
    var secretGuard: SecretGuard
    /// R27: 30 unknown guest PINs per client address per minute, 90 per network (IPv6 /64, IPv4 /24).
    var guestPinFailures: SlidingWindowLimiter
    var guestPinFailuresPerNetwork: SlidingWindowLimiter
    /// Party creation: 10 a minute from one address, 20 from one network; past 60 a minute in all, only networks
    /// that created none in that minute go ahead (a flood from a few cannot lock a host elsewhere out); at most
    /// `maxActiveParties` at once.
    var creationsPerAddress: SlidingWindowLimiter
    var creationsPerNetwork: SlidingWindowLimiter
    var creationsOverall: SlidingWindowLimiter
    var maxActiveParties = PartyLimits().activeParties
    /// Searches and look-ups that reach a remote provider (quota): 15 a minute per exact address, 40 per party.
    var remoteSearchesPerAddress: SlidingWindowLimiter
    var remoteSearchesPerParty: SlidingWindowLimiter
    /// And 300 a minute for the whole server (a YouTube project's daily quota is small).
    var remoteSearchesOverall: SlidingWindowLimiter
    /// Spotify logins begun (each keeps an OAuth state): 10 a minute per address, 20 per party.
    var loginsPerAddress: SlidingWindowLimiter
    var loginsPerParty: SlidingWindowLimiter
    /// Refused or ended-party stream opens per client address: past 5 in 10 s, a reopen waits.
    var streamOpens: SlidingWindowLimiter
    /// TVs waiting to be paired by a host's phone (in memory; `shared` keeps them otherwise); 10 opened a
    /// minute per address.
    private var tvPairings = TVPairings()
    var pairingsPerAddress: SlidingWindowLimiter
    var pairingsPerNetwork: SlidingWindowLimiter
    /// Every claim of a TV code counts, right or wrong.
    var claimsPerAddress: SlidingWindowLimiter
    var claimsPerNetwork: SlidingWindowLimiter

    /// R17/R17a: a like or a veto within the guest's budget. Alone it is counted here, under the state lock; with
    /// several instances `PartyService` counted it in the shared database before it took the lock
    /// (`sharedLikeLimits`), so nothing is left to do here.
    mutating func admitLike(device: String, party: String, at now: Date) throws {
        guard shared == nil else { return }
        try guestLimits.admitLike(device: device, party: party, at: now)
    }

    init(shared: (any SharedGuards)? = nil) {
        self.shared = shared
        func limiter(_ limit: Int, window: TimeInterval = 60, _ name: String) -> SlidingWindowLimiter {
            SlidingWindowLimiter(limit: limit, window: window, name: name, shared: shared)
        }
        guestLimits = GuestLimits(shared: shared)
        secretGuard = SecretGuard(shared: shared)
        guestPinFailures = limiter(30, "guest-pin-address")
        guestPinFailuresPerNetwork = limiter(90, "guest-pin-network")
        creationsPerAddress = limiter(10, "creations-address")
        creationsPerNetwork = limiter(20, "creations-network")
        creationsOverall = limiter(60, "creations")
        remoteSearchesPerAddress = limiter(15, "searches-address")
        remoteSearchesPerParty = limiter(40, "searches-party")
        remoteSearchesOverall = limiter(300, "searches")
        loginsPerAddress = limiter(10, "logins-address")
        loginsPerParty = limiter(20, "logins-party")
        streamOpens = limiter(5, window: 10, "stream-opens")
        pairingsPerAddress = limiter(10, "pairings-address")
        pairingsPerNetwork = limiter(20, "pairings-network")
        claimsPerAddress = limiter(10, "claims-address")
        claimsPerNetwork = limiter(30, "claims-network")
    }

    /// Runs `body` while no other instance runs one for `key`: a check, what it guards and the failure it counts
    /// take turns cluster-wide, so guesses at once on several instances get no more than one instance allows.
    /// In memory the caller's lock is enough.
    func serialized<T>(_ key: String, _ body: () throws -> T) throws -> T {
        guard let shared else { return try body() }
        return try shared.serialized(key, body)
    }

    /// Runs `body` on the TV pairings: this instance's, or (shared) the database's, locked until it returns.
    mutating func withPairings<T>(at now: Date, _ body: (inout TVPairings) throws -> T) throws -> T {
        guard let shared else { return try body(&tvPairings) }
        return try shared.withPairings(at: now, body)
    }

    /// Drops counts that left every window (shared: the rows of every instance; in memory each limiter prunes itself).
    func prune(at now: Date) { shared?.prune(at: now) }
}
