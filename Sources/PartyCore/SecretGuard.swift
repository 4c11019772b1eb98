import Foundation

/// R24, R24a: the one budget for every check of a host PIN or monitor token, wherever it happens.
///
/// - Per client address and party (the scope): more than `addressLimit` wrong secrets a minute lock that
///   address out of that scope; while locked even the right secret answers 429, so a guesser cannot tell.
/// - Per scope, from all addresses together: past `scopeLimit` wrong secrets a minute the scope is under
///   attack, and an address that just failed must wait a delay that grows with the failures before its next
///   check. A client that never failed is never slowed, so the host's right PIN is not refused because of
///   somebody else's guesses (issue 10, item 7).
/// A value type: the owner serializes access; time is injected.
public struct SecretGuard: Sendable {
    public static let addressLimit = 10
    public static let scopeLimit = 30
    public static let maxDelay: TimeInterval = 60
    /// The scope of checks that name no party (`host-join/{pin}` searches every party).
    public static let anyParty = "*"

    private var addressFailures = SlidingWindowLimiter(limit: addressLimit)
    private var scopeFailures = SlidingWindowLimiter(limit: scopeLimit)
    private var lastFailure: [String: Date] = [:]

    public init() {}

    /// Seconds `address` must wait before a secret of `scope` is checked for it, or nil when it may go ahead.
    public func retryAfter(address: String, scope: String, at now: Date) -> Int? {
        let key = Self.key(address, scope)
        if let seconds = addressFailures.retryAfter(key: key, at: now) { return seconds }
        let delay = self.delay(scope: scope, at: now)
        guard delay > 0, let failed = lastFailure[key] else { return nil }
        let wait = failed.addingTimeInterval(delay).timeIntervalSince(now)
        return wait > 0 ? max(1, Int(saturating: wait.rounded(.up))) : nil
    }

    /// Counts a wrong secret. Returns true when this failure put the scope over its budget, so the
    /// host is told once per attack rather than on every guess.
    @discardableResult
    public mutating func recordFailure(address: String, scope: String, at now: Date) -> Bool {
        let key = Self.key(address, scope)
        let wasUnderAttack = isUnderAttack(scope: scope, at: now)
        addressFailures.record(key: key, at: now)
        scopeFailures.record(key: scope, at: now)
        if lastFailure.count >= 10_000 { lastFailure = lastFailure.filter { now.timeIntervalSince($0.value) < Self.maxDelay } }
        lastFailure[key] = now
        return !wasUnderAttack && isUnderAttack(scope: scope, at: now)
    }

    /// Wrong secrets for `scope` in the last minute, from every address.
    public func failures(scope: String, at now: Date) -> Int { scopeFailures.count(key: scope, at: now) }

    public func isUnderAttack(scope: String, at now: Date) -> Bool { failures(scope: scope, at: now) >= Self.scopeLimit }

    /// 0 while the scope is within its budget; then 2 s, doubling with every further `scopeLimit` failures, up to a minute.
    public func delay(scope: String, at now: Date) -> TimeInterval {
        let failures = self.failures(scope: scope, at: now)
        guard failures >= Self.scopeLimit else { return 0 }
        let doublings = min(10, (failures - Self.scopeLimit) / Self.scopeLimit)
        return min(Self.maxDelay, 2 * pow(2, Double(doublings)))
    }

    private static func key(_ address: String, _ scope: String) -> String { address + "|" + scope }
}
