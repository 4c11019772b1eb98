import Foundation
import HTTPServer
import PartyCore

/// Who a request proves to be for a party (R21, R24, R28).
enum Caller: Equatable {
    case host
    case monitor
}

extension PartyService {
    /// R24/R29: 404 before 401 before the throttle before 403.
    func requireHost(_ request: Request, partyId: String) throws -> Party {
        let party = try activeParty(id: partyId)
        try authorize(request, party: party, allowMonitor: false)
        return party
    }

    /// Host PIN or the registered monitor's token (R21's "M").
    @discardableResult
    func requireHostOrMonitor(_ request: Request, partyId: String) throws -> (Party, Caller) {
        let party = try activeParty(id: partyId)
        return (party, try authorize(request, party: party, allowMonitor: true))
    }

    @discardableResult
    func authorize(_ request: Request, party: Party, allowMonitor: Bool) throws -> Caller {
        guard let token = request.bearerToken, !token.isEmpty else { throw PartyError.hostAuthorizationMissing }
        return try locked {
            let key = request.clientAddress
            if let retry = hostPinFailures.retryAfter(key: key, at: now) { throw PartyError.tooManyAttempts(retryAfterSeconds: retry) }
            if token == party.hostPin { return .host }
            if allowMonitor, let monitorToken = try store.monitorToken(partyId: party.id), token == monitorToken {
                return .monitor
            }
            hostPinFailures.record(key: key, at: now)
            throw PartyError.hostPinWrong
        }
    }

    /// R25: whether the request carries this party's host PIN (no throttling side effects).
    func carriesHostPin(_ request: Request, party: Party) -> Bool {
        request.bearerToken == party.hostPin
    }

    /// R27: guest PIN look-up, throttled per client address.
    func joinParty(guestPin: String, clientAddress: String) throws -> Party {
        try locked {
            if let retry = guestPinFailures.retryAfter(key: clientAddress, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if PinGenerator.isWellFormed(guestPin), let party = try store.activeParty(guestPin: guestPin),
               !party.isDueToAutoEnd(at: now) {
                return party
            }
            guestPinFailures.record(key: clientAddress, at: now)
            throw PartyError.partyNotFound
        }
    }

    /// `host-join/{hostPin}`: throttled like R24.
    func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try locked {
            if let retry = hostPinFailures.retryAfter(key: clientAddress, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if PinGenerator.isWellFormed(hostPin), let party = try store.activeParty(hostPin: hostPin),
               !party.isDueToAutoEnd(at: now) {
                return party
            }
            hostPinFailures.record(key: clientAddress, at: now)
            throw PartyError.partyNotFound
        }
    }
}
