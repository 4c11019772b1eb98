import Foundation
import ClientNetwork

/// R24, R24a: the one budget for every check of a host PIN or monitor token, wherever it happens.
///
/// - Per client and scope (a party): more than `addressLimit` wrong secrets a minute from one address (an IPv6
///   /64 counts as one address: a phone rotates through it), or
///   `prefixLimit` from its network (IPv6 /64, IPv4 /24), lock it out of that scope; while locked even the right
///   secret answers 429, so a guesser cannot tell.
/// - Per scope, from all addresses together: past `scopeLimit` wrong secrets a minute the scope is under attack
///   and clients that never proved the secret wait until the minute frees up, however many addresses they
///   have (a new address per guess costs an attacker nothing).
/// - Over a party's life at most `lifetimeLimit` wrong host PINs are evaluated (the caller keeps the count,
///   it outlives a restart): a sweep's chance stays under 1 % of the 99,999 other PINs.
/// - A client that proved the secret (its IPv6 /64 or exact IPv4 address; the caller keeps who did, durably) is
///   never held back by somebody else's guessing; only its own failures count against it.
/// Long secrets (the host page's token, R21's monitor token) are matched before this guard is asked: 128 bits are
/// not guessed, so no budget stands between them and the party.
/// The rules as data and their decision, and the in-memory counts of one instance: a value type, the owner
/// serializes access; time is injected.
public struct SecretGuard: Sendable {
    public static let addressLimit = 10
    public static let prefixLimit = 30
    public static let scopeLimit = 30
    public static let lifetimeLimit = 999
    /// Clients the caller remembers per scope as having proved the secret (host phones, laptops, the TV).
    public static let provenPerScope = 32
    /// The scope of checks that name no party (`host-join/{pin}` searches every party).
    public static let anyParty = "*"

    /// Why a check is not made, and for how long.
    public enum Refusal: Equatable, Sendable {
        /// This client (address or network) failed too often itself.
        case ownFailures(retryAfterSeconds: Int)
        /// Many clients guess at this scope; a client that never proved the secret waits.
        case underAttack(retryAfterSeconds: Int)
        /// The party's lifetime budget of wrong PINs is spent; only clients that proved it get in.
        case exhausted
    }

    /// The three windows as data, shared by this value and the count several instances keep in their database.
    public static let perAddress = LimitRule("secret-address", limit: addressLimit)
    public static let perNetwork = LimitRule("secret-network", limit: prefixLimit)
    public static let perScope = LimitRule("secret-scope", limit: scopeLimit)

    /// The key of each window for a check of `scope` from `address`, in the order they are asked.
    public static func keys(address: String, scope: String) -> [(rule: LimitRule, key: String)] {
        [(perAddress, key(AddressPrefix.device(of: address), scope)), (perNetwork, key(AddressPrefix.network(of: address), scope)),
         (perScope, scope)]
    }

    /// The decision, from each window's wait (nil: under its limit): why the secret is not checked, or nil.
    /// `proven`: the client proved this secret before. `lifetimeFailures`: the party's count of wrong PINs so far.
    public static func refusal(address: Int?, network: Int?, scope: Int?, proven: Bool, lifetimeFailures: Int) -> Refusal? {
        if let address { return .ownFailures(retryAfterSeconds: address) }
        if proven { return nil }
        if let network { return .ownFailures(retryAfterSeconds: network) }
        if lifetimeFailures >= Self.lifetimeLimit { return .exhausted }
        if let scope { return .underAttack(retryAfterSeconds: scope) }
        return nil
    }

    /// Whether the scope's failures in the last minute mean an attack.
    public static func isUnderAttack(failures: Int) -> Bool { failures >= scopeLimit }

    private var windows: [LimitRule: SlidingWindowLimiter] = [perAddress: SlidingWindowLimiter(perAddress),
                                                               perNetwork: SlidingWindowLimiter(perNetwork),
                                                               perScope: SlidingWindowLimiter(perScope)]

    /// In memory (one instance).
    public init() {}

    /// Why the secret of `scope` is not checked for `address` now, or nil when it may go ahead.
    public func refusal(address: String, scope: String, proven: Bool = false, lifetimeFailures: Int = 0, at now: Date) -> Refusal? {
        let waits = Self.keys(address: address, scope: scope).map { windows[$0.rule]?.retryAfter(key: $0.key, at: now) }
        return Self.refusal(address: waits[0], network: waits[1], scope: waits[2], proven: proven, lifetimeFailures: lifetimeFailures)
    }

    /// Counts a wrong secret. Returns true when this failure put the scope over its budget, so the
    /// host is told once per attack rather than on every guess.
    @discardableResult
    public mutating func recordFailure(address: String, scope: String, at now: Date) -> Bool {
        let wasUnderAttack = isUnderAttack(scope: scope, at: now)
        for (rule, key) in Self.keys(address: address, scope: scope) { windows[rule]?.record(key: key, at: now) }
        return !wasUnderAttack && isUnderAttack(scope: scope, at: now)
    }

    /// Wrong secrets for `scope` in the last minute, from every address.
    public func failures(scope: String, at now: Date) -> Int { windows[Self.perScope]?.count(key: scope, at: now) ?? 0 }

    public func isUnderAttack(scope: String, at now: Date) -> Bool { Self.isUnderAttack(failures: failures(scope: scope, at: now)) }

    private static func key(_ client: String, _ scope: String) -> String { client + "|" + scope }
}
