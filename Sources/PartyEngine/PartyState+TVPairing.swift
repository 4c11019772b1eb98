import Foundation
import PartyCore
import ClientNetwork

extension PartyState {
    /// A TV asks to be paired: a code to show and the secret it polls with. 10 a minute per address, 20 per
    /// network; waiting pairings are capped per network (see `TVPairings`).
    mutating func openTVPairing(clientAddress: String) throws -> TVPairings.Pairing {
        let (device, network) = (AddressPrefix.device(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.pairingsPerAddress.retryAfter(key: device, at: now) ?? guards.pairingsPerNetwork.retryAfter(key: network, at: now) {
            throw PartyError.tooManyPairings(retryAfterSeconds: retry)
        }
        let secret = token()
        let time = now
        var random = self.random
        defer { self.random = random }
        guard let pairing = try guards.withPairings(at: time, { $0.open(secret: secret, network: network, at: time, using: &random) }) else {
            throw PartyError.tooManyPairings(retryAfterSeconds: 60)
        }
        guards.pairingsPerAddress.record(key: device, at: now)
        guards.pairingsPerNetwork.record(key: network, at: now)
        return pairing
    }

    /// The host claims the code a TV shows. The TV gets a new monitor token (as pairing with the host PIN does).
    /// Every claim counts, right or wrong (10 a minute per address, 30 per network, 300 for the server); a wrong code also counts in
    /// the R24 budget of the scope `tv-pairing`, so codes cannot be swept to take over somebody else's TV
    /// (issue 23: one address once paired 5 of 5 waiting TVs into its own party). A party whose TV is connected
    /// keeps it unless the host says `replace` (issue 24: a second TV never silently takes over).
    mutating func claimTVPairing(code: String, party: Party, clientAddress: String, replace: Bool) throws {
        let scope = "tv-pairing"
        // Issue 26: the check, the claim and the failure it counts take turns across instances.
        try guards.serialized(scope) { try claimTVPairing(code: code, party: party, clientAddress: clientAddress, replace: replace, scope: scope) }
    }

    private mutating func claimTVPairing(code: String, party: Party, clientAddress: String, replace: Bool, scope: String) throws {
        let (device, network) = (AddressPrefix.device(of: clientAddress), AddressPrefix.network(of: clientAddress))
        try refuseIfGuarded(address: clientAddress, scope: scope)
        if let retry = guards.claimsPerAddress.retryAfter(key: device, at: now) ?? guards.claimsPerNetwork.retryAfter(key: network, at: now)
            ?? guards.claimsOverall.retryAfter(key: "", at: now) {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        guards.claimsPerAddress.record(key: device, at: now)
        guards.claimsPerNetwork.record(key: network, at: now)
        guards.claimsOverall.record(key: "", at: now)
        let time = now
        guard try guards.withPairings(at: time, { $0.waiting(code: code, at: time) }) != nil else {
            guards.secretGuard.recordFailure(address: clientAddress, scope: scope, at: now)
            throw PartyError.pairingNotFound
        }
        if !replace && hasConnectedTV(partyId: party.id) { throw PartyError.monitorConnected }
        let monitorToken = token()
        try replaceMonitorToken(with: monitorToken, partyId: party.id)
        _ = try guards.withPairings(at: time) { $0.claim(code: code, partyId: party.id, monitorToken: monitorToken, at: time) }
    }

    /// What a waiting TV learns with its secret; `.paired` is said once.
    mutating func tvPairingStatus(secret: String) throws -> TVPairings.Status {
        let time = now
        return try guards.withPairings(at: time) { $0.status(secret: secret, at: time) }
    }
}
