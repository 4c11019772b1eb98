import Foundation
import PartyCore

extension PartyState {
    /// A TV asks to be paired: a code to show and the secret it polls with.
    mutating func openTVPairing(clientAddress: String) throws -> TVPairings.Pairing {
        if let retry = pairingsPerAddress.retryAfter(key: clientAddress, at: now) {
            throw PartyError.tooManyPairings(retryAfterSeconds: retry)
        }
        let secret = token()
        guard let pairing = tvPairings.open(secret: secret, at: now, using: &random) else {
            throw PartyError.tooManyPairings(retryAfterSeconds: 60)
        }
        pairingsPerAddress.record(key: clientAddress, at: now)
        return pairing
    }

    /// The host claims the code a TV shows. The TV gets a new monitor token (as pairing with the host PIN does).
    /// A wrong code counts toward the R24 budget of the address: anyone can host a party, so codes must not be
    /// swept to take over somebody else's TV.
    mutating func claimTVPairing(code: String, party: Party, clientAddress: String) throws {
        let scope = "tv-pairing"
        if let retry = secretGuard.retryAfter(address: clientAddress, scope: scope, at: now) {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        guard tvPairings.waiting(code: code, at: now) != nil else {
            secretGuard.recordFailure(address: clientAddress, scope: scope, at: now)
            throw PartyError.pairingNotFound
        }
        let monitorToken = token()
        try store.setMonitor(token: monitorToken, partyId: party.id)
        _ = tvPairings.claim(code: code, partyId: party.id, monitorToken: monitorToken, at: now)
    }

    /// What a waiting TV learns with its secret; `.paired` is said once.
    mutating func tvPairingStatus(secret: String) -> TVPairings.Status {
        tvPairings.status(secret: secret, at: now)
    }
}
