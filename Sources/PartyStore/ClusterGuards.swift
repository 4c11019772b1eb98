import Foundation
import PartyCore
import Synchronization

/// Issue 26: the guards' counts, proven clients and TV pairings in the PostgreSQL database that several instances
/// share (migration 10), on a connection of their own: a count is written at once, never rolled back with the
/// request's transaction (a wrong PIN counts though the request fails). `Mutex` is the connection's serial owner.
/// A database that cannot be asked refuses (see `SharedLimits`) and is logged once per failure.
public final class ClusterGuards: SharedGuards {
    private let connection: Mutex<PostgreSQLConnection>

    public init(url: String) throws {
        connection = Mutex(try PostgreSQLConnection(url: url, applicationName: "musicvoting-guards-\(getpid())"))
    }

    public func buckets(name: String, key: String, window: TimeInterval, at now: Date) -> [WindowBucket]? {
        let rows = run("SELECT count, leaves_at FROM limit_counts WHERE name = ? AND key = ? AND bucket >= ?",
                       [.text(name), .text(key), .integer(WindowBucket.oldestLive(at: now, window: window))])
        return rows?.map { WindowBucket(count: Int($0.integer("count") ?? 0), leavesAt: $0.date("leaves_at") ?? now) }
    }

    public func add(_ count: Int, name: String, key: String, window: TimeInterval, at now: Date) {
        let bucket = WindowBucket.index(at: now, window: window)
        run("""
            INSERT INTO limit_counts (name, key, bucket, count, leaves_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT (name, key, bucket) DO UPDATE SET count = limit_counts.count + excluded.count
            """, [.text(name), .text(key), .integer(bucket), .integer(Int64(count)),
                  .real(WindowBucket.leavesAt(bucket, window: window).timeIntervalSince1970)])
    }

    public func isProven(client: String, scope: String) -> Bool? {
        run("SELECT 1 AS proven FROM proven_clients WHERE scope = ? AND client = ?", [.text(scope), .text(client)]).map { !$0.isEmpty }
    }

    public func prove(client: String, scope: String, keep: Int) {
        guard let inserted = run("""
            INSERT INTO proven_clients (scope, client, proven_at) VALUES (?, ?, extract(epoch FROM clock_timestamp()))
            ON CONFLICT (scope, client) DO NOTHING RETURNING client
            """, [.text(scope), .text(client)]), !inserted.isEmpty else { return }
        run("""
            DELETE FROM proven_clients WHERE scope = ?1 AND client NOT IN
                (SELECT client FROM proven_clients WHERE scope = ?1 ORDER BY proven_at DESC LIMIT ?2)
            """, [.text(scope), .integer(Int64(keep))])
    }

    public func forget(scope: String) {
        run("DELETE FROM proven_clients WHERE scope = ?", [.text(scope)])
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
