import Foundation
import PartyCore
import ClientNetwork

extension PartyState {
    /// A TV asks to be paired: a code to show and the secret it polls with. 10 a minute per address, 20 per
    /// network; waiting pairings are capped per network (see `TVPairings`).
    mutating func openTVPairing(clientAddress: String) throws -> TVPairings.Pairing {
        let (device, network) = (AddressPrefix.host(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.limits.retryAfter(.pairingsPerAddress, key: device, at: now)
            ?? guards.limits.retryAfter(.pairingsPerNetwork, key: network, at: now) {
            throw PartyError.tooManyPairings(retryAfterSeconds: retry)
        }
        let secret = token()
        let time = now
        var random = self.random
        defer { self.random = random }
        guard let pairing = try guards.pairings.withPairings(at: time, { $0.open(secret: secret, network: network, at: time, using: &random) }) else {
            throw PartyError.tooManyPairings(retryAfterSeconds: 60)
        }
        guards.limits.record(.pairingsPerAddress, key: device, count: 1, at: now)
        guards.limits.record(.pairingsPerNetwork, key: network, count: 1, at: now)
        return pairing
    }

    /// The host claims the code a TV shows. The TV gets a new monitor token (as pairing with the host PIN does).
    /// Every claim counts, right or wrong (10 a minute per address, 30 per network). A code of a TV on the claimant's
    /// own network (IPv4 /24, IPv6 /64: the host's phone on the party Wi-Fi) is judged in that network's R24 budget
    /// alone, so guessing elsewhere never holds a host back next to its TV. Any other claim also goes through the
    /// server's budget of wrong codes (`tv-pairing`, 30 a minute from everybody), so codes cannot be swept from
    /// outside to take over somebody else's TV. A party whose TV is connected keeps it unless the host says
    /// `replace` (a second TV never silently takes over).
    mutating func claimTVPairing(code: String, party: Party, clientAddress: String, replace: Bool) throws {
        // R31: the check, the claim and the failure it counts take turns across instances.
        try guards.limits.serialized(Self.serverPairingScope) {
            try claimTVPairingInTurn(code: code, party: party, clientAddress: clientAddress, replace: replace)
        }
    }

    private static let serverPairingScope = "tv-pairing"

    private mutating func claimTVPairingInTurn(code: String, party: Party, clientAddress: String, replace: Bool) throws {
        let (device, network) = (AddressPrefix.host(of: clientAddress), AddressPrefix.network(of: clientAddress))
        let networkScope = Self.serverPairingScope + "|" + network
        try refuseIfGuarded(address: clientAddress, scope: networkScope)
        if let retry = guards.limits.retryAfter(.claimsPerAddress, key: device, at: now)
            ?? guards.limits.retryAfter(.claimsPerNetwork, key: network, at: now) {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        guards.limits.record(.claimsPerAddress, key: device, count: 1, at: now)
        guards.limits.record(.claimsPerNetwork, key: network, count: 1, at: now)
        let time = now
        let pairing = try guards.pairings.withPairings(at: time) { $0.waiting(code: code, at: time) }
        if pairing?.network != network {
            try refuseIfGuarded(address: clientAddress, scope: Self.serverPairingScope)
            guard pairing != nil else {
                _ = guards.limits.recordSecretFailure(address: clientAddress, scope: networkScope, at: now)
                _ = guards.limits.recordSecretFailure(address: clientAddress, scope: Self.serverPairingScope, at: now)
                throw PartyError.pairingNotFound
            }
        }
        if !replace && hasConnectedTV(partyId: party.id) { throw PartyError.monitorConnected }
        let monitorToken = token()
        try replaceMonitorToken(with: monitorToken, partyId: party.id)
        _ = try guards.pairings.withPairings(at: time) { $0.claim(code: code, partyId: party.id, monitorToken: monitorToken, at: time) }
    }

    /// What a waiting TV learns with its secret; `.paired` is said once.
    mutating func tvPairingStatus(secret: String) throws -> TVPairings.Status {
        let time = now
        return try guards.pairings.withPairings(at: time) { $0.status(secret: secret, at: time) }
    }
}
