import Foundation
import PartyCore
import Providers
import ClientNetwork

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
    /// while the client is refused, even the right value throws 429 and reveals nothing.
    /// Returns nil for a wrong value (the caller decides between 403 and answering as a guest).
    /// A token the party's monitor held before it was replaced is wrong but no guess (issue 24: a replaced TV
    /// that keeps calling must not lock its address, the host's too, out).
    /// Issue 26: with several instances, checks of one party's secret take turns across them (`Guards.serialized`):
    /// guesses at once on three instances are refused after exactly what one instance allows.
    mutating func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        try guards.serialized(party.id) { try checkSecretInTurn(token, party: party, clientAddress: clientAddress, allowMonitor: allowMonitor) }
    }

    private mutating func checkSecretInTurn(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        try refuseIfGuarded(address: clientAddress, scope: party.id, lifetimeFailures: party.wrongPinChecks)
        let caller: Caller? = if token == party.hostPin { .host }
            else if allowMonitor, let monitorToken = try store.monitorToken(partyId: party.id), token == monitorToken { .monitor }
            else { nil }
        if caller != nil {
            guards.secretGuard.recordSuccess(address: clientAddress, scope: party.id)
            return caller
        }
        if isRetiredMonitorToken(token, partyId: party.id) { return nil }
        // Only a well-formed PIN can be the host PIN; anything else is still a wrong secret (R24a) but not one
        // of the 99,999 the party's lifetime budget protects.
        if PinGenerator.isWellFormed(token) { try store.countWrongPinCheck(partyId: party.id) }
        if guards.secretGuard.recordFailure(address: clientAddress, scope: party.id, at: now) {
            // Tells the host page that somebody is guessing its PIN and that checks are slowed down.
            publish(.pinGuessing(failures: guards.secretGuard.failures(scope: party.id, at: now)), partyId: party.id)
        }
        return nil
    }

    /// Throws the refusal `SecretGuard` gives for this client and scope, if any.
    func refuseIfGuarded(address: String, scope: String, lifetimeFailures: Int = 0) throws {
        switch guards.secretGuard.refusal(address: address, scope: scope, lifetimeFailures: lifetimeFailures, at: now) {
        case nil: return
        case .ownFailures(let seconds): throw PartyError.tooManyAttempts(retryAfterSeconds: seconds)
        case .underAttack(let seconds): throw PartyError.pinGuessingUnderWay(retryAfterSeconds: seconds)
        case .exhausted: throw PartyError.pinChecksExhausted
        }
    }

    /// R24/R29: the active party (404) whose secret the credential must carry (401, then the throttle, then 403).
    mutating func authorize(_ credential: Credential, partyId: String, allowMonitor: Bool) throws -> (Party, Caller) {
        let party = try activeParty(id: partyId)
        guard let token = credential.token, !token.isEmpty else { throw PartyError.hostAuthorizationMissing }
        guard let caller = try checkSecret(token, party: party, clientAddress: credential.clientAddress, allowMonitor: allowMonitor) else {
            // The TV that was replaced learns it (and stops) instead of reading "wrong PIN".
            if isRetiredMonitorToken(token, partyId: party.id) { throw PartyError.monitorReplaced }
            throw PartyError.hostPinWrong
        }
        return (party, caller)
    }

    /// R27: guest PIN look-up, throttled per client address and per network (IPv6 /64, IPv4 /24).
    mutating func joinParty(guestPin: String, clientAddress: String, deviceId: String? = nil) throws -> Party {
        let network = AddressPrefix.network(of: clientAddress)
        // Issue 26: a network's look-ups take turns across instances (its addresses' counts are in its turn too).
        return try guards.serialized("guest-pin|" + network) {
            try joinPartyInTurn(guestPin: guestPin, clientAddress: clientAddress, deviceId: deviceId)
        }
    }

    private mutating func joinPartyInTurn(guestPin: String, clientAddress: String, deviceId: String?) throws -> Party {
        let (device, network) = (AddressPrefix.device(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.guestPinFailures.retryAfter(key: device, at: now) ?? guards.guestPinFailuresPerNetwork.retryAfter(key: network, at: now) {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        if PinGenerator.isWellFormed(guestPin), let party = try store.activeParty(guestPin: guestPin), !party.isDueToAutoEnd(at: now) {
            // R17a: a guest that says who it is counts as active from its join.
            if let deviceId { try recordActivity(deviceId: deviceId, partyId: party.id) }
            return party
        }
        guards.guestPinFailures.record(key: device, at: now)
        guards.guestPinFailuresPerNetwork.record(key: network, at: now)
        throw PartyError.partyNotFound
    }

    /// `host-join/{hostPin}`: a host PIN check across every party. It shares R24's budget in its own scope, and a
    /// wrong PIN could have been any active party's, so it counts toward every party's lifetime budget (issue 23).
    mutating func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try guards.serialized(SecretGuard.anyParty) { try hostJoinInTurn(hostPin: hostPin, clientAddress: clientAddress) }
    }

    private mutating func hostJoinInTurn(hostPin: String, clientAddress: String) throws -> Party {
        let scope = SecretGuard.anyParty
        try refuseIfGuarded(address: clientAddress, scope: scope)
        if PinGenerator.isWellFormed(hostPin), let party = try store.activeParty(hostPin: hostPin), !party.isDueToAutoEnd(at: now) {
            try refuseIfGuarded(address: clientAddress, scope: party.id, lifetimeFailures: party.wrongPinChecks)
            guards.secretGuard.recordSuccess(address: clientAddress, scope: scope)
            guards.secretGuard.recordSuccess(address: clientAddress, scope: party.id)
            return party
        }
        if PinGenerator.isWellFormed(hostPin) { try store.countWrongPinCheckForEveryActiveParty() }
        guards.secretGuard.recordFailure(address: clientAddress, scope: scope, at: now)
        throw PartyError.partyNotFound
    }

    /// R1/R2/R3: a new party with fresh PINs. Throttled per address and server-wide, and the active parties
    /// are capped well below the PIN space, so a creation flood neither slows the running parties nor
    /// exhausts the PINs (issue 10).
    mutating func createParty(provider name: String, settings: PartySettings, clientAddress: String) throws -> Party {
        let (device, network) = (AddressPrefix.device(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.creationsPerAddress.retryAfter(key: device, at: now) ?? guards.creationsPerNetwork.retryAfter(key: network, at: now) {
            throw PartyError.tooManyParties(retryAfterSeconds: retry)
        }
        if let retry = guards.creationsOverall.retryAfter(key: "", at: now), guards.creationsPerNetwork.count(key: network, at: now) > 0 {
            throw PartyError.tooManyParties(retryAfterSeconds: retry)
        }
        if try store.activePartyCount() >= guards.maxActiveParties { throw PartyError.tooManyParties(retryAfterSeconds: 60) }
        guards.creationsPerAddress.record(key: device, at: now)
        guards.creationsPerNetwork.record(key: network, at: now)
        guards.creationsOverall.record(key: "", at: now)
        let store = self.store
        let pins = try PinGenerator.pair(using: &random, isTaken: { (try? store.isPinTaken($0)) ?? true })
        let party = Party(id: Identifiers.token(using: &random), guestPin: pins.guest, hostPin: pins.host, provider: name, createdAt: now,
                          settings: settings)
        try store.insert(party)
        // The creator knows the host PIN: its own guessers never hold it back.
        guards.secretGuard.recordSuccess(address: clientAddress, scope: party.id)
        return party
    }

    /// Issue 10: one guest once spent 15,150 YouTube quota units in 13 s. Searches and look-ups that have to call
    /// the service count per address, per party and server-wide, all `count` of them before the first call;
    /// cached answers never do.
    mutating func admitRemoteSearch(party: Party, clientAddress: String, count: Int = 1) throws {
        let device = AddressPrefix.device(of: clientAddress)
        let budgets = [(guards.remoteSearchesPerAddress, device), (guards.remoteSearchesPerParty, party.id), (guards.remoteSearchesOverall, "")]
        for (limiter, key) in budgets where limiter.remaining(key: key, at: now) < count {
            throw ProviderError.searchRateLimited(retryAfterSeconds: limiter.retryAfter(key: key, at: now) ?? Int(limiter.window))
        }
        guards.remoteSearchesPerAddress.record(key: device, at: now, count: count)
        guards.remoteSearchesPerParty.record(key: party.id, at: now, count: count)
        guards.remoteSearchesOverall.record(key: "", at: now, count: count)
    }

    /// Issue 23: `GET …/spotify/login` is open before the first login (SPEC), so it is budgeted per address and party.
    mutating func admitProviderLogin(party: Party, clientAddress: String) throws {
        let device = AddressPrefix.device(of: clientAddress)
        if let retry = guards.loginsPerAddress.retryAfter(key: device, at: now) ?? guards.loginsPerParty.retryAfter(key: party.id, at: now) {
            throw PartyError.rateLimited(retryAfterSeconds: retry)
        }
        guards.loginsPerAddress.record(key: device, at: now)
        guards.loginsPerParty.record(key: party.id, at: now)
    }
}
