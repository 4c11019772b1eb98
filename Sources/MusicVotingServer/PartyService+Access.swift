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
        try findParty(pin: guestPin, clientAddress: clientAddress, failures: \.guestPinFailures) { try store.activeParty(guestPin: $0) }
    }

    /// `host-join/{hostPin}`: throttled like R24.
    func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try findParty(pin: hostPin, clientAddress: clientAddress, failures: \.hostPinFailures) { try store.activeParty(hostPin: $0) }
    }

    /// A PIN look-up whose misses count against the client address in `failures`.
    private func findParty(pin: String, clientAddress: String, failures: ReferenceWritableKeyPath<PartyService, SlidingWindowLimiter>,
                           lookup: (String) throws -> Party?) throws -> Party {
        try locked {
            if let retry = self[keyPath: failures].retryAfter(key: clientAddress, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if PinGenerator.isWellFormed(pin), let party = try lookup(pin), !party.isDueToAutoEnd(at: now) {
                return party
            }
            self[keyPath: failures].record(key: clientAddress, at: now)
            throw PartyError.partyNotFound
        }
    }
}
