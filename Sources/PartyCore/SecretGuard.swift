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
/// A value type: the owner serializes access; time is injected.
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

    private var addressFailures: SlidingWindowLimiter
    private var prefixFailures: SlidingWindowLimiter
    private var scopeFailures: SlidingWindowLimiter

    /// `shared`: counts shared by several instances; nil: in memory.
    public init(shared: (any SharedLimits)? = nil) {
        addressFailures = SlidingWindowLimiter(limit: Self.addressLimit, name: "secret-address", shared: shared)
        prefixFailures = SlidingWindowLimiter(limit: Self.prefixLimit, name: "secret-network", shared: shared)
        scopeFailures = SlidingWindowLimiter(limit: Self.scopeLimit, name: "secret-scope", shared: shared)
    }

    /// Why the secret of `scope` is not checked for `address` now, or nil when it may go ahead.
    /// `proven`: the client proved this secret before. `lifetimeFailures` is the party's count of wrong PINs so far
    /// (0 for scopes without one).
    public func refusal(address: String, scope: String, proven: Bool = false, lifetimeFailures: Int = 0, at now: Date) -> Refusal? {
        if let seconds = addressFailures.retryAfter(key: Self.key(AddressPrefix.device(of: address), scope), at: now) {
            return .ownFailures(retryAfterSeconds: seconds)
        }
        if proven { return nil }
        if let seconds = prefixFailures.retryAfter(key: Self.key(AddressPrefix.network(of: address), scope), at: now) {
            return .ownFailures(retryAfterSeconds: seconds)
        }
        if lifetimeFailures >= Self.lifetimeLimit { return .exhausted }
        if let seconds = scopeFailures.retryAfter(key: scope, at: now) { return .underAttack(retryAfterSeconds: seconds) }
        return nil
    }

    /// Counts a wrong secret. Returns true when this failure put the scope over its budget, so the
    /// host is told once per attack rather than on every guess.
    @discardableResult
    public mutating func recordFailure(address: String, scope: String, at now: Date) -> Bool {
        let wasUnderAttack = isUnderAttack(scope: scope, at: now)
        addressFailures.record(key: Self.key(AddressPrefix.device(of: address), scope), at: now)
        prefixFailures.record(key: Self.key(AddressPrefix.network(of: address), scope), at: now)
        scopeFailures.record(key: scope, at: now)
        return !wasUnderAttack && isUnderAttack(scope: scope, at: now)
    }

    /// Wrong secrets for `scope` in the last minute, from every address.
    public func failures(scope: String, at now: Date) -> Int { scopeFailures.count(key: scope, at: now) }

    public func isUnderAttack(scope: String, at now: Date) -> Bool { failures(scope: scope, at: now) >= Self.scopeLimit }

    private static func key(_ client: String, _ scope: String) -> String { client + "|" + scope }
}
