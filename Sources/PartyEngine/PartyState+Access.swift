import Foundation
import PartyCore
import Providers
import ClientNetwork

/// Who a request proves to be for a party (R21, R24, R28).
public enum Caller: Equatable, Sendable {
    case host
    case monitor
    /// R34: a phone with a live co-host link; the routes say which host actions it may do.
    case cohost
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
    /// R24a: the one place a host PIN, host token or monitor token is compared. Long secrets (the host page's token,
    /// R21's monitor token) are matched first and never refused: 128 bits are not guessed, so nobody's guessing keeps
    /// the TV or a host page out. A PIN goes through `SecretGuard`: a wrong one counts toward the budget, and while
    /// the client is refused even the right one throws 429 and reveals nothing.
    /// Returns nil for a wrong value (the caller decides between 403 and answering as a guest).
    /// A token the party's monitor held before it was replaced is wrong but no guess (a replaced TV that keeps
    /// calling must not lock its address, the host's too, out).
    /// R31: with several instances, checks of one party's secret take turns across them (`Guards.serialized`):
    /// guesses at once on three instances are refused after exactly what one instance allows.
    mutating func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        if let hostToken = party.hostToken, token == hostToken { return .host }
        if allowMonitor, let monitorToken = try store.monitorToken(partyId: party.id), token == monitorToken { return .monitor }
        // R34: a co-host's token is a long secret too; a revoked one is wrong but no guess (its phone was told).
        if let cohost = try cohostLink(token, party: party) { return cohost.isLive ? .cohost : nil }
        if isRetiredMonitorToken(token, partyId: party.id) { return nil }
        return try guards.limits.serialized(party.id) { try checkPinInTurn(token, party: party, clientAddress: clientAddress) }
    }

    private mutating func checkPinInTurn(_ token: String, party: Party, clientAddress: String) throws -> Caller? {
        let proven = try isProven(clientAddress, scope: party.id)
        try refuseIfGuarded(address: clientAddress, scope: party.id, proven: proven, lifetimeFailures: party.wrongPinChecks)
        if token == party.hostPin {
            if !proven { try prove(clientAddress, scope: party.id) }
            return .host
        }
        // Only a well-formed PIN can be the host PIN; anything else is still a wrong secret (R24a) but not one
        // of the 99,999 the party's lifetime budget protects.
        if PinGenerator.isWellFormed(token) { try store.countWrongPinCheck(partyId: party.id) }
        recordWrongSecret(address: clientAddress, partyId: party.id)
        return nil
    }

    /// Counts a wrong secret for the party; the first that puts it under attack tells the host page that somebody
    /// is guessing its PIN and that checks are slowed down.
    mutating func recordWrongSecret(address: String, partyId: String) {
        if guards.limits.recordSecretFailure(address: address, scope: partyId, at: now) {
            publish(.pinGuessing(failures: guards.limits.secretFailures(scope: partyId, at: now)), partyId: partyId)
        }
    }

    /// Whether the client (its IPv6 /64 or IPv4 address) proved the secret of `scope`; kept in the store, so it
    /// outlives a restart and a database crash.
    func isProven(_ address: String, scope: String) throws -> Bool {
        try store.isProven(client: AddressPrefix.device(of: address), scope: scope)
    }

    mutating func prove(_ address: String, scope: String) throws {
        try store.prove(client: AddressPrefix.device(of: address), scope: scope, keep: SecretGuard.provenPerScope, at: now)
    }

    /// Throws the refusal `SecretGuard` gives for this client and scope, if any.
    func refuseIfGuarded(address: String, scope: String, proven: Bool = false, lifetimeFailures: Int = 0) throws {
        switch guards.limits.secretRefusal(address: address, scope: scope, proven: proven, lifetimeFailures: lifetimeFailures, at: now) {
        case nil: return
        case .ownFailures(let seconds): throw PartyError.tooManyAttempts(retryAfterSeconds: seconds)
        case .underAttack(let seconds): throw PartyError.pinGuessingUnderWay(retryAfterSeconds: seconds)
        case .exhausted: throw PartyError.pinChecksExhausted
        }
    }

    /// R24/R29: the active party (404) whose secret the credential must carry (401, then the throttle, then 403).
    /// R34: a co-host's link is refused (403) where `allowCohost` is false.
    mutating func authorize(_ credential: Credential, partyId: String, allowMonitor: Bool, allowCohost: Bool = false) throws -> (Party, Caller) {
        let party = try activeParty(id: partyId)
        guard let token = credential.token, !token.isEmpty else { throw PartyError.hostAuthorizationMissing }
        guard let caller = try checkSecret(token, party: party, clientAddress: credential.clientAddress, allowMonitor: allowMonitor) else {
            // The TV that was replaced learns it (and stops) instead of reading "wrong PIN".
            if isRetiredMonitorToken(token, partyId: party.id) { throw PartyError.monitorReplaced }
            // The co-host whose link was revoked learns it (and its page says so) instead of reading "wrong PIN".
            if try isRevokedCohostToken(token, party: party) { throw PartyError.cohostRevoked }
            throw PartyError.hostPinWrong
        }
        if caller == .cohost && !allowCohost { throw PartyError.hostOnly }
        return (party, caller)
    }

    /// R27: guest PIN look-up, throttled per client address and per network (IPv6 /64, IPv4 /24).
    mutating func joinParty(guestPin: String, clientAddress: String, deviceId: String? = nil) throws -> Party {
        let network = AddressPrefix.network(of: clientAddress)
        // A network's look-ups take turns across instances (its addresses' counts are in its turn too).
        return try guards.limits.serialized("guest-pin|" + network) {
            try joinPartyInTurn(guestPin: guestPin, clientAddress: clientAddress, deviceId: deviceId)
        }
    }

    private mutating func joinPartyInTurn(guestPin: String, clientAddress: String, deviceId: String?) throws -> Party {
        let (device, network) = (AddressPrefix.host(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.limits.retryAfter(.guestPinsPerAddress, key: device, at: now) { throw PartyError.tooManyAttempts(retryAfterSeconds: retry) }
        // A network is many people: while others on it spend its budget, an address that guessed nothing wrong in
        // the window still gets its look-up (a guest scanning the QR code gets in); each wrong one counts as before,
        // so guessers on many addresses gain one look-up per address and window.
        if let retry = guards.limits.retryAfter(.guestPinsPerNetwork, key: network, at: now),
           guards.limits.count(.guestPinsPerAddress, key: device, at: now) > 0 {
            throw PartyError.tooManyAttempts(retryAfterSeconds: retry)
        }
        if PinGenerator.isWellFormed(guestPin), let party = try store.activeParty(guestPin: guestPin), !party.isDueToAutoEnd(at: now) {
            // R17a: a guest that says who it is is admitted and counts as active from its join; past the ration it
            // still finds the party, and is admitted at its first add or like.
            if let deviceId {
                do {
                    try admitGuest(deviceId, party: party, clientAddress: clientAddress)
                    try recordActivity(deviceId: deviceId, partyId: party.id)
                } catch is PartyError {
                    // Past the ration, or from a banned guest's address: the join still finds the party.
                }
            }
            return party
        }
        guards.limits.record(.guestPinsPerAddress, key: device, count: 1, at: now)
        guards.limits.record(.guestPinsPerNetwork, key: network, count: 1, at: now)
        throw PartyError.partyNotFound
    }

    /// `host-join/{hostPin}`: a host PIN check across every party, in R24's budget of its own scope. A wrong PIN could
    /// have been any active party's: each counts it apart from its own budget, and once `SecretGuard.lifetimeLimit`
    /// such misses were evaluated while it was active, `host-join` no longer finds the party (a sweep's chance stays
    /// under 1 %) except for clients that proved its PIN. Guessing here never spends a party's own budget, so nobody
    /// is locked out of a party by it: its host page, TV and the party's own routes go on as before.
    mutating func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try guards.limits.serialized(SecretGuard.anyParty) { try hostJoinInTurn(hostPin: hostPin, clientAddress: clientAddress) }
    }

    private mutating func hostJoinInTurn(hostPin: String, clientAddress: String) throws -> Party {
        let scope = SecretGuard.anyParty
        try refuseIfGuarded(address: clientAddress, scope: scope, proven: try isProven(clientAddress, scope: scope))
        if PinGenerator.isWellFormed(hostPin), var party = try store.activeParty(hostPin: hostPin), !party.isDueToAutoEnd(at: now) {
            let proven = try isProven(clientAddress, scope: party.id)
            if party.hostJoinMisses < SecretGuard.lifetimeLimit || proven {
                try refuseIfGuarded(address: clientAddress, scope: party.id, proven: proven, lifetimeFailures: party.wrongPinChecks)
                try prove(clientAddress, scope: scope)
                if !proven { try prove(clientAddress, scope: party.id) }
                try ensureHostToken(&party)
                return party
            }
        }
        if PinGenerator.isWellFormed(hostPin) { try store.countHostJoinMissForEveryActiveParty() }
        // No party matched the PIN, so no host to tell of an attack on it: only the count matters here (R24).
        _ = guards.limits.recordSecretFailure(address: clientAddress, scope: scope, at: now)
        throw PartyError.partyNotFound
    }

    /// The host page's token, made for a party that has none yet (one made before tokens existed).
    mutating func ensureHostToken(_ party: inout Party) throws {
        guard party.hostToken == nil else { return }
        let token = token()
        try store.setHostToken(token, partyId: party.id)
        party.hostToken = token
    }

    /// R24a: the host replaces its PIN (a PIN that leaked, or a budget spent by guessing): a new PIN and host token,
    /// the budgets start over, and every client that proved the old PIN must prove the new one. The TV keeps its token.
    mutating func rotateHostPin(of party: Party, clientAddress: String) throws -> Party {
        let store = self.store
        let pin = try PinGenerator.single(using: &random, isTaken: { (try? store.isPinTaken($0)) ?? true })
        let hostToken = token()
        try transaction { state in
            try state.store.rotateHostPin(to: pin, hostToken: hostToken, partyId: party.id)
            try state.store.forgetProven(scope: party.id)
            try state.prove(clientAddress, scope: party.id)
        }
        var rotated = party
        rotated.hostPin = pin
        rotated.hostToken = hostToken
        rotated.wrongPinChecks = 0
        rotated.hostJoinMisses = 0
        return rotated
    }

    /// R24a: a one-time link from the server's console (`musicvoting host-link`), for a host who lost every phone:
    /// it rotates the host PIN and hands this client the new PIN and token. The link's token is a long secret; a
    /// wrong one counts like any wrong secret.
    mutating func redeemHostRecovery(token: String, partyId: String, clientAddress: String) throws -> Party {
        let party = try activeParty(id: partyId)
        guard !token.isEmpty, token.utf8.count <= 64, try store.takeHostRecovery(token: token, partyId: party.id, at: now) else {
            recordWrongSecret(address: clientAddress, partyId: party.id)
            throw PartyError.hostPinWrong
        }
        return try rotateHostPin(of: party, clientAddress: clientAddress)
    }

    /// R1/R2/R3: a new party with fresh PINs. Throttled per address and server-wide, and the active parties
    /// are capped well below the PIN space, so a creation flood neither slows the running parties nor
    /// exhausts the PINs.
    mutating func createParty(provider name: String, settings: PartySettings, clientAddress: String) throws -> Party {
        let (device, network) = (AddressPrefix.host(of: clientAddress), AddressPrefix.network(of: clientAddress))
        if let retry = guards.limits.retryAfter(.creationsPerAddress, key: device, at: now) ?? guards.limits.retryAfter(.creationsPerNetwork, key: network, at: now) {
            throw PartyError.tooManyParties(retryAfterSeconds: retry)
        }
        if let retry = guards.limits.retryAfter(.creations, key: "", at: now), guards.limits.count(.creationsPerNetwork, key: network, at: now) > 0 {
            throw PartyError.tooManyParties(retryAfterSeconds: retry)
        }
        if try store.activePartyCount() >= guards.maxActiveParties { throw PartyError.tooManyParties(retryAfterSeconds: 60) }
        guards.limits.record(.creationsPerAddress, key: device, count: 1, at: now)
        guards.limits.record(.creationsPerNetwork, key: network, count: 1, at: now)
        guards.limits.record(.creations, key: "", count: 1, at: now)
        let store = self.store
        let pins = try PinGenerator.pair(using: &random, isTaken: { (try? store.isPinTaken($0)) ?? true })
        let party = Party(id: Identifiers.token(using: &random), guestPin: pins.guest, hostPin: pins.host, provider: name, createdAt: now,
                          hostToken: token(), settings: settings)
        try store.insert(party)
        // The creator knows the host PIN: its own guessers never hold it back.
        try prove(clientAddress, scope: party.id)
        return party
    }

    /// A provider's quota is the whole party's: one guest must not spend it. Searches and look-ups that have to call
    /// the service count per address, per party and server-wide, all `count` of them before the first call;
    /// cached answers never do.
    mutating func admitRemoteSearch(party: Party, clientAddress: String, count: Int = 1) throws {
        let device = AddressPrefix.host(of: clientAddress)
        let budgets: [(LimitRule, String)] = [(.searchesPerAddress, device), (.searchesPerParty, party.id), (.searches, "")]
        for (rule, key) in budgets where rule.limit - guards.limits.count(rule, key: key, at: now) < count {
            throw ProviderError.searchRateLimited(retryAfterSeconds: guards.limits.retryAfter(rule, key: key, at: now) ?? Int(rule.window))
        }
        for (rule, key) in budgets { guards.limits.record(rule, key: key, count: count, at: now) }
    }

    /// `GET …/spotify/login` is open before the first login (SPEC), so it is budgeted per address and party. A login
    /// the host began (`byHost`: it proved the PIN or token) is counted per address only: guests never spend it.
    mutating func admitProviderLogin(party: Party, clientAddress: String, byHost: Bool) throws {
        let device = AddressPrefix.host(of: clientAddress)
        if let retry = guards.limits.retryAfter(.loginsPerAddress, key: device, at: now)
            ?? (byHost ? nil : guards.limits.retryAfter(.loginsPerParty, key: party.id, at: now)) {
            throw PartyError.rateLimited(retryAfterSeconds: retry)
        }
        guards.limits.record(.loginsPerAddress, key: device, count: 1, at: now)
        if !byHost { guards.limits.record(.loginsPerParty, key: party.id, count: 1, at: now) }
    }
}
