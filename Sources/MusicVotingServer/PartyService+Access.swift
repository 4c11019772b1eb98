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
        try authorize(request.bearerToken, party: party, clientAddress: request.clientAddress, allowMonitor: false)
        return party
    }

    /// Host PIN or the registered monitor's token (R21's "M").
    @discardableResult
    func requireHostOrMonitor(_ request: Request, partyId: String) throws -> (Party, Caller) {
        let party = try activeParty(id: partyId)
        return (party, try authorize(request.bearerToken, party: party, clientAddress: request.clientAddress, allowMonitor: true))
    }

    /// A secret that must be present: 401 without it, else the one check.
    @discardableResult
    func authorize(_ token: String?, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller {
        guard let token, !token.isEmpty else { throw PartyError.hostAuthorizationMissing }
        guard let caller = try checkSecret(token, party: party, clientAddress: clientAddress, allowMonitor: allowMonitor) else {
            throw PartyError.hostPinWrong
        }
        return caller
    }

    /// R24a: the one place a host PIN or monitor token is compared. A wrong value counts toward the
    /// budget; while the address is over it, even the right value throws 429 and reveals nothing.
    /// Returns nil for a wrong value (the caller decides between 403 and answering as a guest).
    func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        let (caller, attackBegan) = try locked { () throws -> (Caller?, Bool) in
            if let retry = secretGuard.retryAfter(address: clientAddress, scope: party.id, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if token == party.hostPin { return (.host, false) }
            if allowMonitor, let monitorToken = try store.monitorToken(partyId: party.id), token == monitorToken {
                return (.monitor, false)
            }
            return (nil, secretGuard.recordFailure(address: clientAddress, scope: party.id, at: now))
        }
        if attackBegan { publishPinGuessing(party) }
        return caller
    }

    /// Tells the host page that somebody is guessing its PIN and that checks are being slowed down.
    private func publishPinGuessing(_ party: Party) {
        let failures = locked { secretGuard.failures(scope: party.id, at: now) }
        hub.publish(ServerEvent(type: .pinGuessing, partyId: party.id, payload: [("failures", String(failures))]))
    }

    /// R25: whether the request carries this party's host PIN. A Bearer that is not it counts like any wrong PIN.
    func carriesHostPin(_ request: Request, party: Party) throws -> Bool {
        guard let token = request.bearerToken, !token.isEmpty else { return false }
        return try checkSecret(token, party: party, clientAddress: request.clientAddress, allowMonitor: false) == .host
    }

    /// R27: guest PIN look-up, throttled per client address.
    func joinParty(guestPin: String, clientAddress: String) throws -> Party {
        try locked {
            if let retry = guestPinFailures.retryAfter(key: clientAddress, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if PinGenerator.isWellFormed(guestPin), let party = try store.activeParty(guestPin: guestPin), !party.isDueToAutoEnd(at: now) {
                return party
            }
            guestPinFailures.record(key: clientAddress, at: now)
            throw PartyError.partyNotFound
        }
    }

    /// `host-join/{hostPin}`: a host PIN check across every party, so it shares R24's budget in its own scope.
    func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try locked {
            let scope = SecretGuard.anyParty
            if let retry = secretGuard.retryAfter(address: clientAddress, scope: scope, at: now) {
                throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
            }
            if PinGenerator.isWellFormed(hostPin), let party = try store.activeParty(hostPin: hostPin), !party.isDueToAutoEnd(at: now) {
                return party
            }
            secretGuard.recordFailure(address: clientAddress, scope: scope, at: now)
            throw PartyError.partyNotFound
        }
    }
}
