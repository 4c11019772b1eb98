import Foundation
import PartyCore
import PartyEngine
import PartyStore
import Synchronization

/// R31: the guards' counts and TV pairings in the PostgreSQL database that several instances
/// share (migration 10), on a connection of their own: a count is written at once, never rolled back with the
/// request's transaction (a wrong PIN counts though the request fails). `Mutex` is the connection's serial owner.
/// Counts live in buckets (`WindowBucket`): exact or stricter than one instance's rolling windows, never looser.
/// A database that cannot be asked refuses (`unavailableRetry`) and is logged once per failure.
public final class ClusterGuards: Sendable {
    private let connection: Mutex<PostgreSQLConnection>
    /// The rations of new guests (`GuestLimits.rations`), set by the operator.
    private let rations = Mutex(GuestLimits.rations())

    /// A database that cannot be asked refuses for this long (stricter, never looser).
    static let unavailableRetry = 2

    public init(url: String) throws {
        connection = Mutex(try PostgreSQLConnection(url: url, applicationName: "musicvoting-guards-\(getpid())"))
    }

    /// The key's live buckets in limiter `name` at `now`, or nil when the database cannot be asked.
    func buckets(name: String, key: String, window: TimeInterval, at now: Date) -> [WindowBucket]? {
        let rows = run("SELECT count, leaves_at FROM limit_counts WHERE name = ? AND key = ? AND bucket >= ?",
                       [.text(name), .text(key), .integer(WindowBucket.oldestLive(at: now, window: window))])
        return rows?.map { WindowBucket(count: Int($0.integer("count") ?? 0), leavesAt: $0.date("leaves_at") ?? now) }
    }

    /// Counts `count` events of the key in its current bucket.
    func add(_ count: Int, name: String, key: String, window: TimeInterval, at now: Date) {
        let bucket = WindowBucket.index(at: now, window: window)
        run("""
            INSERT INTO limit_counts (name, key, bucket, count, leaves_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name, key, bucket) DO UPDATE SET count = limit_counts.count + excluded.count
            """, [.text(name), .text(key), .integer(bucket), .integer(Int64(count)),
                  .real(WindowBucket.leavesAt(bucket, window: window).timeIntervalSince1970)])
    }

    /// Adds the counts and reads every item's live buckets back in one statement (the current bucket as the upsert
    /// left it: a concurrent add to it waits for this one and then sees it), then takes them away again when one
    /// item is over: a count never holds more than was admitted once the statement ends.
    /// Returns nil when they fit, else the seconds until the first item over its limit may.
    func admit(_ count: Int, _ items: [(rule: LimitRule, key: String)], at now: Date) -> Int? {
        guard !items.isEmpty else { return nil }
        var values: [SQLValue] = []
        var rows: [String] = []
        for (index, item) in items.enumerated() {
            let bucket = WindowBucket.index(at: now, window: item.rule.window)
            rows.append("(\(index)::int, ?, ?, ?::bigint, ?::bigint, ?::float8, ?::bigint)")
            values += [.text(item.rule.name), .text(item.key), .integer(bucket), .integer(Int64(count)),
                       .real(WindowBucket.leavesAt(bucket, window: item.rule.window).timeIntervalSince1970),
                       .integer(WindowBucket.oldestLive(at: now, window: item.rule.window))]
        }
        guard let found = run("""
            WITH input (item, name, key, bucket, count, leaves_at, oldest) AS (VALUES \(rows.joined(separator: ", "))),
            added AS (
                INSERT INTO limit_counts (name, key, bucket, count, leaves_at) SELECT name, key, bucket, count, leaves_at FROM input
                ON CONFLICT (name, key, bucket) DO UPDATE SET count = limit_counts.count + excluded.count
                RETURNING name, key, count, leaves_at)
            SELECT i.item, a.count, a.leaves_at FROM added a JOIN input i ON i.name = a.name AND i.key = a.key
            UNION ALL
            SELECT i.item, l.count, l.leaves_at FROM limit_counts l JOIN input i
                ON l.name = i.name AND l.key = i.key AND l.bucket >= i.oldest AND l.bucket <> i.bucket
            """, values) else { return Self.unavailableRetry }
        let buckets = Dictionary(grouping: found, by: { Int($0.integer("item") ?? -1) }).mapValues { rows in
            rows.map { WindowBucket(count: Int($0.integer("count") ?? 0), leavesAt: $0.date("leaves_at") ?? now) }
        }
        for (index, item) in items.enumerated() {
            // The buckets hold this admission's counts already: over the limit with them?
            guard let retry = WindowBucket.retryAfter(buckets[index] ?? [], limit: item.rule.limit, adding: 0, window: item.rule.window,
                                                      at: now) else {
                continue
            }
            for undo in items {
                run("UPDATE limit_counts SET count = count - ? WHERE name = ? AND key = ? AND bucket = ?",
                    [.integer(Int64(count)), .text(undo.rule.name), .text(undo.key),
                     .integer(WindowBucket.index(at: now, window: undo.rule.window))])
            }
            return retry
        }
        return nil
    }

    public func prune(at now: Date) {
        run("DELETE FROM limit_counts WHERE leaves_at <= ?", [.real(now.timeIntervalSince1970)])
        run("DELETE FROM tv_pairings WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
    }

    /// A transaction holding `pg_advisory_xact_lock` on `key` around `body` (nested calls add their key to the open
    /// one). Its counts commit also when `body` throws: a refused or wrong guess still counts. Waits at most 5 s
    /// for the lock, then throws (the caller refuses).
    public func serialized<T>(_ key: String, _ body: () throws -> T) throws -> T {
        let outermost = try connection.withLock { connection -> Bool in
            let outermost = !connection.isInTransaction
            if outermost {
                // A session a database restart ended is found out here, before anything of the transaction ran.
                try connection.runReconnecting("SELECT 1", [])
                try connection.execute("BEGIN; SET LOCAL lock_timeout = '5s'")
            }
            do {
                try connection.run("SELECT pg_advisory_xact_lock(hashtextextended(?, 0))", [.text("musicvoting-guard|" + key)])
            } catch {
                if outermost { try? connection.execute("ROLLBACK") }
                throw error
            }
            return outermost
        }
        guard outermost else { return try body() }
        let result: Result<T, any Error> = Result { try body() }
        try connection.withLock { connection in
            // A statement that failed inside left nothing to commit (COMMIT would roll back without a word): say so.
            do {
                try connection.checkCommittable()
                try connection.execute("COMMIT")
            } catch {
                try? connection.execute("ROLLBACK")
                throw error
            }
        }
        return try result.get()
    }

    public func withPairings<T>(at now: Date, _ body: (inout TVPairings) throws -> T) throws -> T {
        try serialized("tv-pairings") {
            let rows = try runOrThrow("""
                SELECT secret, code, network, expires_at, party_id, monitor_token FROM tv_pairings WHERE expires_at > ?
                """, [.real(now.timeIntervalSince1970)])
            let before = rows.compactMap { row -> TVPairings.Pairing? in
                guard let secret = row.text("secret"), let code = row.text("code"), let network = row.text("network"),
                      let expiresAt = row.date("expires_at") else { return nil }
                let claim = row.text("party_id").flatMap { party in
                    row.text("monitor_token").map { TVPairings.Claim(partyId: party, monitorToken: $0) }
                }
                return TVPairings.Pairing(code: code, secret: secret, expiresAt: expiresAt, network: network, claim: claim)
            }
            var pairings = TVPairings(pairings: before)
            let result = Result { try body(&pairings) }
            let kept = Dictionary(uniqueKeysWithValues: before.map { ($0.secret, $0) })
            let after = Dictionary(uniqueKeysWithValues: pairings.pairings.map { ($0.secret, $0) })
            for secret in kept.keys where after[secret] == nil {
                try runOrThrow("DELETE FROM tv_pairings WHERE secret = ?", [.text(secret)])
            }
            for (secret, pairing) in after where kept[secret] != pairing {
                try runOrThrow("""
                    INSERT INTO tv_pairings (secret, code, network, expires_at, party_id, monitor_token) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (secret) DO UPDATE SET party_id = excluded.party_id, monitor_token = excluded.monitor_token
                    """, [.text(secret), .text(pairing.code), .text(pairing.network), .real(pairing.expiresAt.timeIntervalSince1970),
                          pairing.claim.map { .text($0.partyId) } ?? .null, pairing.claim.map { .text($0.monitorToken) } ?? .null])
            }
            return try result.get()
        }
    }

    @discardableResult
    private func runOrThrow(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row] {
        try connection.withLock { connection throws(DatabaseError) in try connection.runReconnecting(sql, values) }
    }

    /// The rows, or nil (logged) when the database failed.
    @discardableResult
    private func run(_ sql: String, _ values: [SQLValue]) -> [Row]? {
        do { return try runOrThrow(sql, values) } catch {
            FileHandle.standardError.write(Data("musicvoting: shared guards: \(error)\n".utf8))
            return nil
        }
    }
}

/// The guards' counts on the shared database: PartyCore's rules and decisions over the buckets' counts.
extension ClusterGuards: LimitCounter {
    public func retryAfter(_ rule: LimitRule, key: String, at now: Date) -> Int? {
        guard let buckets = buckets(name: rule.name, key: key, window: rule.window, at: now) else { return Self.unavailableRetry }
        return WindowBucket.retryAfter(buckets, limit: rule.limit, adding: 1, window: rule.window, at: now)
    }

    public func record(_ rule: LimitRule, key: String, count: Int, at now: Date) {
        add(count, name: rule.name, key: key, window: rule.window, at: now)
    }

    /// A database that cannot be asked counts as a full window.
    public func count(_ rule: LimitRule, key: String, at now: Date) -> Int {
        buckets(name: rule.name, key: key, window: rule.window, at: now)?.reduce(0) { $0 + $1.count } ?? rule.limit
    }

    /// Checked and counted in one round trip.
    public func admitNewGuest(party: String, address: String, at now: Date) throws(PartyError) {
        let rations = self.rations.withLock { $0 }
        guard !rations.isEmpty else { return }
        if let retry = admit(1, rations.map { ($0.rule, $0.key(party, address)) }, at: now) { throw .tooManyNewGuests(retryAfterSeconds: retry) }
    }

    public func setNewGuestsPerNetwork(_ limit: Int) { rations.withLock { $0 = GuestLimits.rations(newGuestsPerNetwork: limit) } }

    public var countsNewGuests: Bool { !rations.withLock { $0.isEmpty } }

    public func checkAdds(_ count: Int, device: String, party: String, at now: Date) throws(PartyError) {
        let key = GuestLimits.key(device: device, party: party)
        try GuestLimits.checkAdds(count, left: max(0, GuestLimits.adds.limit - self.count(GuestLimits.adds, key: key, at: now)),
                                  retryAfter: retryAfter(GuestLimits.adds, key: key, at: now))
    }

    public func recordAdds(_ count: Int, device: String, party: String, at now: Date) {
        record(GuestLimits.adds, key: GuestLimits.key(device: device, party: party), count: count, at: now)
    }

    /// A database that cannot be asked counts as a full window, free again after a short wait.
    public func addBudget(device: String, party: String, at now: Date) -> AddBudget {
        let rule = GuestLimits.adds
        guard let buckets = buckets(name: rule.name, key: GuestLimits.key(device: device, party: party), window: rule.window, at: now) else {
            return AddBudget(addsLeft: 0, nextAddInMs: Self.unavailableRetry * 1000)
        }
        let (left, next) = WindowBucket.budget(buckets, limit: rule.limit, at: now)
        return AddBudget(addsLeft: left, nextAddInMs: next)
    }

    /// Counted in the like's write, on the store's connection (`SeveralWriters.admitLike`).
    public func admitLike(device: String, party: String, at now: Date) throws(PartyError) {}

    public func secretRefusal(address: String, scope: String, proven: Bool, lifetimeFailures: Int, at now: Date) -> SecretGuard.Refusal? {
        let waits = SecretGuard.keys(address: address, scope: scope).map { retryAfter($0.rule, key: $0.key, at: now) }
        return SecretGuard.refusal(address: waits[0], network: waits[1], scope: waits[2], proven: proven, lifetimeFailures: lifetimeFailures)
    }

    public func recordSecretFailure(address: String, scope: String, at now: Date) -> Bool {
        let wasUnderAttack = SecretGuard.isUnderAttack(failures: secretFailures(scope: scope, at: now))
        for (rule, key) in SecretGuard.keys(address: address, scope: scope) { record(rule, key: key, count: 1, at: now) }
        return !wasUnderAttack && SecretGuard.isUnderAttack(failures: secretFailures(scope: scope, at: now))
    }

    public func secretFailures(scope: String, at now: Date) -> Int { count(SecretGuard.perScope, key: scope, at: now) }
}

extension ClusterGuards: PairingRegistry {}
