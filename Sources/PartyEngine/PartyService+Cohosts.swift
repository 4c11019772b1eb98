import Foundation
import PartyCore

/// Who a request is to a party (R25, R34): its host (with the host's secrets), one of its co-hosts, or a guest.
public enum PartyAccess: Sendable {
    case guest
    case host(Party)
    case cohost(Cohost)
}

extension PartyService {
    /// R34: a new co-host link (`PartyError.cohostLimit` past `Cohost.liveLimit` live ones).
    public func createCohost(party: Party) throws -> Cohost { try withState { try $0.createCohost(party: party) } }

    /// R34: the party's live links, who joined first first.
    public func cohosts(of party: Party) throws -> [Cohost] {
        try withState { Cohost.listed(try $0.store.cohosts(partyId: party.id)) }
    }

    /// R34: revokes one link, named by its handle or its token.
    public func revokeCohost(_ handleOrToken: String, party: Party) throws {
        try withState { try $0.revokeCohost(handleOrToken, party: party) }
    }

    /// R34: revokes every live link; returns how many.
    public func revokeAllCohosts(party: Party) throws -> Int { try withState { try $0.revokeAllCohosts(party: party) } }

    /// R25/R34: what the credential makes of the request. A wrong secret counts (R24a) and answers as a guest; a
    /// revoked co-host link is `.cohostRevoked`, so its page says so instead of showing a guest's view.
    public func access(_ credential: Credential, party: Party) throws -> PartyAccess {
        guard let token = credential.token, !token.isEmpty else { return .guest }
        return try withState { state in
            switch try state.checkSecret(token, party: party, clientAddress: credential.clientAddress, allowMonitor: false) {
            case .host?:
                var party = party
                try state.ensureHostToken(&party)
                return .host(party)
            case .cohost?:
                guard let link = try state.store.cohost(token: token, partyId: party.id) else { return .guest }
                return .cohost(link)
            case .monitor?, nil:
                if try state.isRevokedCohostToken(token, party: party) { throw PartyError.cohostRevoked }
                return .guest
            }
        }
    }
}
