import Foundation
import PartyCore
import Providers

/// Who a request proves to be for a party (R21, R24, R28).
public enum Caller: Equatable, Sendable {
    case host
    case monitor
}

/// A secret a request carries for a party: the Bearer token (or `?hostPin=`), and where it came from.
public struct Credential: Sendable {
    public var token: String?
    public var clientAddress: String

    public init(token: String?, clientAddress: String) {
        self.token = token
        self.clientAddress = clientAddress
    }
}

extension PartyState {
    /// R24a: the one place a host PIN or monitor token is compared. A wrong value counts toward the budget;
    /// while the address is over it, even the right value throws 429 and reveals nothing.
    /// Returns nil for a wrong value (the caller decides between 403 and answering as a guest).
    mutating func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        if let retry = secretGuard.retryAfter(address: clientAddress, scope: party.id, at: now) {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        if token == party.hostPin { return .host }
        if allowMonitor, let monitorToken = try store.monitorToken(partyId: party.id), token == monitorToken { return .monitor }
        if secretGuard.recordFailure(address: clientAddress, scope: party.id, at: now) {
            // Tells the host page that somebody is guessing its PIN and that checks are slowed down.
            publish(ServerEvent(type: .pinGuessing, partyId: party.id,
                                payload: [("failures", String(secretGuard.failures(scope: party.id, at: now)))]))
        }
        return nil
    }

    /// R24/R29: the active party (404) whose secret the credential must carry (401, then the throttle, then 403).
    mutating func authorize(_ credential: Credential, partyId: String, allowMonitor: Bool) throws -> (Party, Caller) {
        let party = try activeParty(id: partyId)
        guard let token = credential.token, !token.isEmpty else { throw PartyError.hostAuthorizationMissing }
        guard let caller = try checkSecret(token, party: party, clientAddress: credential.clientAddress, allowMonitor: allowMonitor) else {
            throw PartyError.hostPinWrong
        }
        return (party, caller)
    }

    /// R27: guest PIN look-up, throttled per client address.
    mutating func joinParty(guestPin: String, clientAddress: String) throws -> Party {
        if let retry = guestPinFailures.retryAfter(key: clientAddress, at: now) { throw PartyError.tooManyAttempts(retryAfterSeconds: retry) }
        if PinGenerator.isWellFormed(guestPin), let party = try store.activeParty(guestPin: guestPin), !party.isDueToAutoEnd(at: now) {
            return party
        }
        guestPinFailures.record(key: clientAddress, at: now)
        throw PartyError.partyNotFound
    }

    /// `host-join/{hostPin}`: a host PIN check across every party, so it shares R24's budget in its own scope.
    mutating func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
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

    /// R1/R2/R3: a new party with fresh PINs. Throttled per address and server-wide, and the active parties
    /// are capped well below the PIN space, so a creation flood neither slows the running parties nor
    /// exhausts the PINs (issue 10).
    mutating func createParty(provider name: String, clientAddress: String) throws -> Party {
        if let retry = creationsPerAddress.retryAfter(key: clientAddress, at: now) ?? creationsOverall.retryAfter(key: "", at: now) {
            throw PartyError.tooManyParties(retryAfterSeconds: retry)
        }
        if try store.activePartyCount() >= maxActiveParties { throw PartyError.tooManyParties(retryAfterSeconds: 60) }
        creationsPerAddress.record(key: clientAddress, at: now)
        creationsOverall.record(key: "", at: now)
        let store = self.store
        let pins = try PinGenerator.pair(using: &random, isTaken: { (try? store.isPinTaken($0)) ?? true })
        let party = Party(id: Identifiers.token(using: &random), guestPin: pins.guest, hostPin: pins.host, provider: name, createdAt: now)
        try store.insert(party)
        return party
    }

    /// Issue 10: one guest once spent 15,150 YouTube quota units in 13 s. A search or look-up that has to
    /// call the service counts per address and per party; cached answers never do.
    mutating func admitRemoteSearch(party: Party, clientAddress: String) throws {
        if let retry = remoteSearchesPerAddress.retryAfter(key: clientAddress, at: now)
            ?? remoteSearchesPerParty.retryAfter(key: party.id, at: now) {
            throw ProviderError.searchRateLimited(retryAfterSeconds: retry)
        }
        remoteSearchesPerAddress.record(key: clientAddress, at: now)
        remoteSearchesPerParty.record(key: party.id, at: now)
    }
}
