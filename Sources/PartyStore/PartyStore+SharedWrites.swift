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

    /// The channel the instances of one database ring each other's doorbells on (LISTEN/NOTIFY).
    public static let instancesChannel = "musicvoting_events"

    public func ringInstances(_ payload: String) throws {
        try run("SELECT pg_notify(?1, ?2) AS rung", [.text(Self.instancesChannel), .text(payload)])
    }

    /// R17a: when each of `rows`' devices was last seen in the party, one statement for up to `rowsPerStatement`
    /// devices. One row per device.
    public func recordActivity(_ rows: [(deviceId: String, at: Date)], partyId: String) throws {
        for chunk in rows.chunks(of: Self.rowsPerStatement) {
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

/// One device's vote on one entry (R17).
public struct VoteKey: Hashable, Sendable {
    public let entryId: Int64
    public let deviceId: String

    public init(entryId: Int64, deviceId: String) {
        self.entryId = entryId
        self.deviceId = deviceId
    }
}

/// What a group commit's likes of one party need of the database (their devices' counts under R11's like limit,
/// their votes on the party's entries, whether they are guests, the party's bans), read in one statement for all of them.
public struct LikesRead: Sendable {
    /// Each limit key's live buckets, by bucket number.
    public var counts: [String: [Int64: WindowBucket]] = [:]
    public var votes: Set<VoteKey> = []
    /// The device and entry pairs whose vote was read (liked or not).
    public var votesRead: Set<VoteKey> = []
    public var guests: Set<String> = []
    /// The party's bans (R30), as `PartyStoring.bans`.
    public var bans: (adders: Set<String>, addresses: Set<String>) = ([], [])

    public init() {}
}

/// What a group commit's likes of one party wrote, as one statement: the counts added, the guests admitted, the
/// votes added and taken back, each entry's count moved by its votes' net change, the party's guests' activity.
public struct LikesWrite: Sendable {
    public var counts: [(key: String, bucket: Int64, count: Int, leavesAt: Date)] = []
    public var guests: [(deviceId: String, address: String, at: Date)] = []
    public var liked: [VoteKey] = []
    public var unliked: [VoteKey] = []
    public var likeCounts: [(entryId: Int64, change: Int)] = []
    /// R17a: when the party's devices were last seen (one row per device), as `PartyStoring.recordActivity`.
    public var activity: [(deviceId: String, at: Date)] = []

    public init() {}

    public var isEmpty: Bool { counts.isEmpty && guests.isEmpty && liked.isEmpty && unliked.isEmpty && likeCounts.isEmpty && activity.isEmpty }
}

/// R17 on PostgreSQL: a group commit's likes of a party read and write in one statement each (inside the
/// transaction, after the party's row lock, so no other instance changes these rows meanwhile). The rows go as JSON
/// arrays (`json_to_recordset`): one statement text, prepared once, for any number of likes.
extension PartyStore {
    /// `likes`: each like's device and the uri it likes. The votes read are those of each device on the party's entries
    /// of that uri (`votesRead`: the pairs looked at, `votes`: those liked); every lookup goes by a primary key, so
    /// the read costs the same in a party of ten guests as in one of thousands.
    public func readForLikes(partyId: String, likes: [(deviceId: String, uri: String)], rule: LimitRule, at now: Date) throws -> LikesRead {
        let devices = Array(Set(likes.map(\.deviceId)))
        let keys = devices.map { GuestLimits.key(device: $0, party: partyId) }
        let pairs = likes.map { "{\"device\":\(Self.json($0.deviceId)),\"uri\":\(Self.json($0.uri))}" }
        // OFFSET 0 keeps each lateral lookup apart from its outer row: joined, a plan made while the tables were small
        // read every row of the key once they were not (statements are prepared once per session).
        let rows = try run("""
            SELECT 'c' AS kind, k.key AS name, c.bucket AS number, c.count AS count, c.leaves_at AS leaves_at, CAST(NULL AS TEXT) AS address
            FROM json_array_elements_text(CAST(?2 AS json)) AS k(key)
            CROSS JOIN LATERAL (SELECT bucket, count, leaves_at FROM limit_counts WHERE name = ?1 AND key = k.key AND bucket >= ?3 OFFSET 0) AS c
            UNION ALL
            SELECT 'v', h.device, e.id, COALESCE(v.liked, 0), 0, NULL
            FROM json_to_recordset(CAST(?5 AS json)) AS h(device text, uri text)
            JOIN queue_entries e ON e.party_id = ?4 AND e.uri = h.uri
            LEFT JOIN LATERAL (SELECT 1 AS liked FROM votes WHERE entry_id = e.id AND device_id = h.device OFFSET 0) AS v ON TRUE
            UNION ALL
            SELECT 'g', d.device, 0, 0, 0, NULL FROM json_array_elements_text(CAST(?6 AS json)) AS d(device)
            CROSS JOIN LATERAL (SELECT 1 FROM guests WHERE party_id = ?4 AND device_id = d.device OFFSET 0) AS g
            UNION ALL
            SELECT 'b', adder, 0, 0, 0, address FROM bans WHERE party_id = ?4
            """, [.text(rule.name), .text(Self.jsonArray(keys)), .integer(WindowBucket.oldestLive(at: now, window: rule.window)),
                  .text(partyId), .text("[" + pairs.joined(separator: ",") + "]"), .text(Self.jsonArray(devices))])
        var read = LikesRead()
        for row in rows {
            if row.text("kind") == "b" {
                if let adder = row.text("name") { read.bans.adders.insert(adder) }
                if let address = row.text("address") { read.bans.addresses.insert(address) }
                continue
            }
            guard let name = row.text("name") else { continue }
            switch row.text("kind") {
            case "c":
                let number = row.integer("number") ?? 0
                read.counts[name, default: [:]][number] = WindowBucket(count: Int(row.integer("count") ?? 0),
                                                                       leavesAt: row.date("leaves_at") ?? now)
            case "v":
                let vote = VoteKey(entryId: row.integer("number") ?? 0, deviceId: name)
                read.votesRead.insert(vote)
                if row.integer("count") == 1 { read.votes.insert(vote) }
            default: read.guests.insert(name)
            }
        }
        return read
    }

    /// Writes `likes`; false when a row was not where the likes' read found it (the caller's batch then runs again, a
    /// like at a time).
    public func writeLikes(_ likes: LikesWrite, partyId: String, rule: LimitRule) throws -> Bool {
        let counts = likes.counts.map { "{\"key\":\(Self.json($0.key)),\"bucket\":\($0.bucket),\"count\":\($0.count),\"leaves_at\":\($0.leavesAt.timeIntervalSince1970)}" }
        let guests = likes.guests.map { "{\"device\":\(Self.json($0.deviceId)),\"address\":\(Self.json($0.address)),\"at\":\($0.at.timeIntervalSince1970)}" }
        let votes = { (keys: [VoteKey]) in keys.map { "{\"entry\":\($0.entryId),\"device\":\(Self.json($0.deviceId))}" } }
        let changes = likes.likeCounts.map { "{\"entry\":\($0.entryId),\"change\":\($0.change)}" }
        let activity = likes.activity.map { "{\"device\":\(Self.json($0.deviceId)),\"at\":\($0.at.timeIntervalSince1970)}" }
        let row = try run("""
            WITH counted AS (
                INSERT INTO limit_counts (name, key, bucket, count, leaves_at)
                SELECT ?1, c.key, c.bucket, c.count, c.leaves_at
                FROM json_to_recordset(CAST(?2 AS json)) AS c(key text, bucket bigint, count bigint, leaves_at double precision)
                ON CONFLICT (name, key, bucket) DO UPDATE SET count = limit_counts.count + excluded.count RETURNING 1),
            admitted AS (
                INSERT INTO guests (party_id, device_id, address, admitted_at)
                SELECT ?3, g.device, g.address, g.at FROM json_to_recordset(CAST(?4 AS json)) AS g(device text, address text, at double precision)
                ON CONFLICT DO NOTHING RETURNING 1),
            liked AS (
                INSERT INTO votes (entry_id, device_id)
                SELECT v.entry, v.device FROM json_to_recordset(CAST(?5 AS json)) AS v(entry bigint, device text)
                ON CONFLICT DO NOTHING RETURNING 1),
            unliked AS (
                DELETE FROM votes WHERE ctid = ANY(ARRAY(
                    SELECT found.ctid FROM json_to_recordset(CAST(?6 AS json)) AS v(entry bigint, device text)
                    CROSS JOIN LATERAL (SELECT ctid FROM votes WHERE entry_id = v.entry AND device_id = v.device OFFSET 0) AS found))
                RETURNING 1),
            moved AS (
                UPDATE queue_entries SET like_count = like_count
                    + (SELECT d.change FROM json_to_recordset(CAST(?7 AS json)) AS d(entry bigint, change bigint) WHERE d.entry = queue_entries.id)
                WHERE id = ANY(ARRAY(SELECT d.entry FROM json_to_recordset(CAST(?7 AS json)) AS d(entry bigint, change bigint)))
                    AND party_id = ?3
                RETURNING 1),
            seen AS (
                INSERT INTO guest_activity (party_id, device_id, seen_at)
                SELECT ?3, a.device, a.at FROM json_to_recordset(CAST(?8 AS json)) AS a(device text, at double precision)
                ON CONFLICT (party_id, device_id) DO UPDATE SET seen_at = excluded.seen_at RETURNING 1)
            SELECT (SELECT COUNT(*) FROM seen) AS seen, (SELECT COUNT(*) FROM counted) AS counted, (SELECT COUNT(*) FROM admitted) AS admitted,
                (SELECT COUNT(*) FROM liked) AS liked, (SELECT COUNT(*) FROM unliked) AS unliked, (SELECT COUNT(*) FROM moved) AS moved
            """, [.text(rule.name), .text("[" + counts.joined(separator: ",") + "]"), .text(partyId),
                  .text("[" + guests.joined(separator: ",") + "]"), .text("[" + votes(likes.liked).joined(separator: ",") + "]"),
                  .text("[" + votes(likes.unliked).joined(separator: ",") + "]"), .text("[" + changes.joined(separator: ",") + "]"), .text("[" + activity.joined(separator: ",") + "]")]).first
        database.noteWritten()
        return row?.integer("counted") == Int64(likes.counts.count) && row?.integer("admitted") == Int64(likes.guests.count)
            && row?.integer("liked") == Int64(likes.liked.count) && row?.integer("unliked") == Int64(likes.unliked.count)
            && row?.integer("moved") == Int64(likes.likeCounts.count) && row?.integer("seen") == Int64(likes.activity.count)
    }

    static func jsonArray(_ texts: [String]) -> String { "[" + texts.map(json).joined(separator: ",") + "]" }

    /// `text` as a JSON string: quotes, backslashes and control characters escaped (a device id is the client's).
    static func json(_ text: String) -> String {
        var output = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case _ where scalar.value < 0x20: output += String(format: "\\u%04x", scalar.value)
            default: output.unicodeScalars.append(scalar)
            }
        }
        return output + "\""
    }
}
