import Foundation
import PartyCore

/// R34: co-host links. A link's token is a long secret, matched like the host token (`checkSecret`); the host
/// makes, lists and revokes links with its own PIN or token only.
extension PartyState {
    /// The party's link with this token, live or revoked; its first use is recorded and announced once, on whichever
    /// instance sees it first. Only a 128-bit token can be one: a PIN costs no look-up.
    mutating func cohostLink(_ token: String, party: Party) throws -> Cohost? {
        guard Identifiers.isWellFormedToken(token), var cohost = try store.cohost(token: token, partyId: party.id) else { return nil }
        if cohost.isLive, cohost.joinedAt == nil, try store.markCohostJoined(id: cohost.id, partyId: party.id, at: now) {
            cohost.joinedAt = now
            publish(.cohostsUpdated(.joined), partyId: party.id)
        }
        return cohost
    }

    /// Whether `token` is a link of the party that the host revoked.
    func isRevokedCohostToken(_ token: String, party: Party) throws -> Bool {
        guard Identifiers.isWellFormedToken(token) else { return false }
        return try store.cohost(token: token, partyId: party.id).map { !$0.isLive } ?? false
    }

    /// A new link, within `Cohost.liveLimit` live ones. The party's row is locked for the count and the insert, so
    /// two hosts' phones on two instances never make a sixth (one instance alone: nothing to lock).
    mutating func createCohost(party: Party) throws -> Cohost {
        try transaction { state in
            try state.store.lockParty(id: party.id)
            let live = try state.store.cohosts(partyId: party.id).filter(\.isLive).count
            guard live < Cohost.liveLimit else { throw PartyError.cohostLimit(limit: Cohost.liveLimit) }
            let cohost = Cohost(id: Cohost.handle(using: &state.random), token: state.token(), createdAt: state.now)
            try state.store.insertCohost(cohost, partyId: party.id)
            try state.store.pruneRevokedCohosts(partyId: party.id, keep: Cohost.revokedKept)
            state.publish(.cohostsUpdated(.created), partyId: party.id)
            return cohost
        }
    }

    /// Revokes the link with this handle or token (`.cohostNotFound` when the party has none); revoking a revoked
    /// one again changes nothing.
    mutating func revokeCohost(_ handleOrToken: String, party: Party) throws {
        try transaction { state in
            let links = try state.store.cohosts(partyId: party.id)
            guard let cohost = links.first(where: { $0.id == handleOrToken || $0.token == handleOrToken }) else { throw PartyError.cohostNotFound }
            let revoked = try state.store.revokeCohosts(ids: [cohost.id], partyId: party.id, at: state.now)
            if !revoked.isEmpty { state.publish(.cohostRevoked(ids: revoked), partyId: party.id) }
        }
    }

    /// Revokes every live link of the party; returns how many.
    mutating func revokeAllCohosts(party: Party) throws -> Int {
        try transaction { state in
            let live = try state.store.cohosts(partyId: party.id).filter(\.isLive).map(\.id)
            let revoked = try state.store.revokeCohosts(ids: live, partyId: party.id, at: state.now)
            if !revoked.isEmpty { state.publish(.cohostRevoked(ids: revoked), partyId: party.id) }
            return revoked.count
        }
    }
}
