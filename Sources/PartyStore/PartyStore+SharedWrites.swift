import Foundation
import PartyCore

/// R31: a limit counted in the shared counts (`limit_counts`, migration 10) on the store's own connection, inside
/// the open transaction: a like is counted in its group commit's transaction instead of a round trip and a
/// transaction of its own before it. PostgreSQL only (one instance alone keeps its counts in memory).
extension PartyStore {
    /// Adds `count` to `key`'s current bucket under `rule` and reads its live buckets back in one statement (the
    /// current bucket as the upsert left it: a concurrent add to it waits for this transaction). Over the limit the
    /// count is taken back. Returns nil when it fits, else the seconds until it may.
    public func admit(_ count: Int, _ rule: LimitRule, key: String, at now: Date) throws -> Int? {
        let bucket = WindowBucket.index(at: now, window: rule.window)
        let rows = try run("""
            WITH added AS (
                INSERT INTO limit_counts (name, key, bucket, count, leaves_at) VALUES (?1, ?2, ?3, ?4, ?5)
                ON CONFLICT (name, key, bucket) DO UPDATE SET count = limit_counts.count + excluded.count
                RETURNING count, leaves_at)
            SELECT count, leaves_at FROM added
            UNION ALL
            SELECT count, leaves_at FROM limit_counts WHERE name = ?1 AND key = ?2 AND bucket >= ?6 AND bucket <> ?3
            """, [.text(rule.name), .text(key), .integer(bucket), .integer(Int64(count)),
                  .real(WindowBucket.leavesAt(bucket, window: rule.window).timeIntervalSince1970),
                  .integer(WindowBucket.oldestLive(at: now, window: rule.window))])
        let buckets = rows.map { WindowBucket(count: Int($0.integer("count") ?? 0), leavesAt: $0.date("leaves_at") ?? now) }
        // The buckets hold this count already: over the limit with it?
        guard let retry = WindowBucket.retryAfter(buckets, limit: rule.limit, adding: 0, window: rule.window, at: now) else { return nil }
        // Taken back in a statement that answers rows, as the count itself: no row a read cache holds changed, so the
        // store's write version stays and a refused like counts as a write that wrote nothing (it fails alone).
        try run("""
            WITH taken AS (UPDATE limit_counts SET count = count - ? WHERE name = ? AND key = ? AND bucket = ? RETURNING 1)
            SELECT COUNT(*) AS taken FROM taken
            """, [.integer(Int64(count)), .text(rule.name), .text(key), .integer(bucket)])
        return retry
    }

    /// R17a: when each of `rows`' devices was last seen in the party, one statement for up to `rowsPerStatement`
    /// devices. One row per device.
    public func recordActivity(_ rows: [(deviceId: String, at: Date)], partyId: String) throws {
        var left = rows[...]
        while !left.isEmpty {
            let chunk = left.prefix(Self.rowsPerStatement)
            left = left.dropFirst(chunk.count)
            var values: [SQLValue] = []
            values.reserveCapacity(3 * chunk.count)
            for (deviceId, at) in chunk { values += [.text(partyId), .text(deviceId), .date(at)] }
            try run(Self.activityUpserts[chunk.count - 1], values)
        }
    }

    static let activityUpserts: [String] = (1...rowsPerStatement).map { rows in
        """
        INSERT INTO guest_activity (party_id, device_id, seen_at) VALUES \(Array(repeating: "(?, ?, ?)", count: rows).joined(separator: ", "))
        ON CONFLICT(party_id, device_id) DO UPDATE SET seen_at = excluded.seen_at
        """
    }
}
