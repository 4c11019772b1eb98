import Foundation
import PartyCore

/// Every limit of docs/security.md's table, and the TV pairings waiting to be claimed: what guards the server
/// against guessing and floods. Where the counts and pairings live (this instance's memory, or the database several
/// instances share) is the counter's and the registry's business. A value type that `PartyState` owns.
struct Guards {
    var limits: any LimitCounter
    var pairings: any PairingRegistry
    var maxActiveParties = PartyLimits().activeParties

    init(limits: any LimitCounter = LocalLimits(), pairings: any PairingRegistry = LocalPairings()) {
        self.limits = limits
        self.pairings = pairings
    }
}

/// The engine's limits as data (`GuestLimits` and `SecretGuard` hold theirs). A rule's name keys its counts.
extension LimitRule {
    /// R27: 30 unknown guest PINs per client address per minute, 90 per network (IPv6 /64, IPv4 /24).
    static let guestPinsPerAddress = LimitRule("guest-pin-address", limit: 30)
    static let guestPinsPerNetwork = LimitRule("guest-pin-network", limit: 90)
    /// Party creation: 10 a minute from one address, 20 from one network; past 60 a minute in all, only networks
    /// that created none in that minute go ahead (a flood from a few cannot lock a host elsewhere out); at most
    /// `Guards.maxActiveParties` at once.
    static let creationsPerAddress = LimitRule("creations-address", limit: 10)
    static let creationsPerNetwork = LimitRule("creations-network", limit: 20)
    static let creations = LimitRule("creations", limit: 60)
    /// Searches and look-ups that reach a remote provider (quota): 15 a minute per exact address, 40 per party,
    /// and 300 a minute for the whole server (a YouTube project's daily quota is small).
    static let searchesPerAddress = LimitRule("searches-address", limit: 15)
    static let searchesPerParty = LimitRule("searches-party", limit: 40)
    static let searches = LimitRule("searches", limit: 300)
    /// Spotify logins begun (each keeps an OAuth state): 10 a minute per address, 20 per party.
    static let loginsPerAddress = LimitRule("logins-address", limit: 10)
    static let loginsPerParty = LimitRule("logins-party", limit: 20)
    /// Refused or ended-party stream opens per client address: past 5 in 10 s, a reopen waits.
    static let streamOpens = LimitRule("stream-opens", limit: 5, window: 10)
    /// TV pairings opened: 10 a minute per address, 20 per network.
    static let pairingsPerAddress = LimitRule("pairings-address", limit: 10)
    static let pairingsPerNetwork = LimitRule("pairings-network", limit: 20)
    /// Every claim of a TV code counts, right or wrong.
    static let claimsPerAddress = LimitRule("claims-address", limit: 10)
    static let claimsPerNetwork = LimitRule("claims-network", limit: 30)
}
