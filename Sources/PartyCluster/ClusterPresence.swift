import Foundation
import PartyCore
import PartyEngine
import PartyStore
import Synchronization

/// The monitor's presence and the stall clock of every party, shared by the instances on one PostgreSQL
/// (migration 11, `monitor_presence`): each instance writes its own record of a party's player when it changes and
/// refreshes it while its streams are open; the instance that owns the party's timers (`TimerShards`) reads them
/// all. A record's streams count until `streamsUntil`: an instance killed with its streams open stops counting
/// within that. Its own connection; the `Mutex` is its serial owner.
public final class ClusterPresence: PresenceRecords {
    /// How long a record's streams count without a refresh (the owner refreshes every second).
    public static let streamsLifetime: TimeInterval = 4
    /// This instance's name in the records (process id and a random part: unique across machines).
    public let instance: String
    public var shardCount: Int { TimerShards.count }
    private let connection: Mutex<PostgreSQLConnection>

    public init(url: String) throws {
        instance = "\(getpid())-\(UInt32.random(in: 0 ... .max))"
        connection = Mutex(try PostgreSQLConnection(url: url, applicationName: "musicvoting-presence-\(getpid())"))
    }

    /// Writes this instance's records of the parties' players, up to `PartyStore.rowsPerStatement` in one statement.
    public func save(_ records: [String: PresenceRecord]) throws {
        func date(_ value: Date?) -> SQLValue { value.map { .real($0.timeIntervalSince1970) } ?? .null }
        for chunk in records.sorted(by: { $0.key < $1.key }).chunks(of: PartyStore.rowsPerStatement) {
            let values = chunk.flatMap { partyId, record -> [SQLValue] in
                [.text(partyId), .text(instance), .integer(Int64(record.streams)),
                 .real(record.updatedAt.addingTimeInterval(Self.streamsLifetime).timeIntervalSince1970),
                 date(record.lastHeartbeat), date(record.lastStreamClosed), .integer(record.reports ? 1 : 0),
                 date(record.heardAt), record.positionMs.map { .integer(Int64($0)) } ?? .null, date(record.reportedAt),
                 .real(record.updatedAt.timeIntervalSince1970)]
            }
            try run(Self.upserts[chunk.count - 1], values)
        }
    }

    /// The upsert of 1 … `PartyStore.rowsPerStatement` records, each text made once.
    static let upserts: [String] = (1...PartyStore.rowsPerStatement).map { rows in
        """
        INSERT INTO monitor_presence (party_id, instance, streams, streams_until, last_heartbeat, last_stream_closed, reports,
                                      heard_at, position_ms, reported_at, updated_at)
        VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
        ON CONFLICT (party_id, instance) DO UPDATE SET streams = excluded.streams, streams_until = excluded.streams_until,
            last_heartbeat = excluded.last_heartbeat, last_stream_closed = excluded.last_stream_closed, reports = excluded.reports,
            heard_at = excluded.heard_at, position_ms = excluded.position_ms, reported_at = excluded.reported_at,
            updated_at = excluded.updated_at
        """
    }

    /// Every instance's record of the party's player.
    public func records(partyId: String, at now: Date) throws -> [PresenceRecord] {
        try run("SELECT * FROM monitor_presence WHERE party_id = ?", [.text(partyId)]).map { Self.record($0, at: now) }
    }

    /// The records of every active party in `shards` (of `TimerShards.count`), by party.
    public func records(shards: [Int], at now: Date) throws -> [String: [PresenceRecord]] {
        let rows = try run("""
            SELECT m.* FROM monitor_presence m JOIN parties p ON p.id = m.party_id
            WHERE p.ended_at IS NULL AND \(TimerShards.shardOf("m.party_id")) = ANY(?::int[])
            """, [.text(Self.array(shards))])
        return Dictionary(grouping: rows, by: { $0.text("party_id") ?? "" }).mapValues { $0.map { Self.record($0, at: now) } }
    }

    /// The active parties in `shards` whose song should be heard (playing, or stalled: a current entry that the host
    /// did not pause).
    public func partiesToWatch(shards: [Int]) throws -> [String] {
        try run("""
            SELECT id FROM parties WHERE ended_at IS NULL AND current_entry_id IS NOT NULL AND paused_by_host = 0
            AND \(TimerShards.shardOf("id")) = ANY(?::int[])
            """, [.text(Self.array(shards))]).compactMap { $0.text("id") }
    }

    public func forget(partyId: String) throws {
        try run("DELETE FROM monitor_presence WHERE party_id = ?", [.text(partyId)])
        try run("DELETE FROM party_players WHERE party_id = ?", [.text(partyId)])
    }

    /// Drops records nobody wrote for a while whose streams no longer count (their party's player left long ago).
    public func prune(before cutoff: Date, at now: Date) throws {
        try run("DELETE FROM monitor_presence WHERE updated_at < ? AND streams_until < ?",
                [.real(cutoff.timeIntervalSince1970), .real(now.timeIntervalSince1970)])
        // Parties purged, or ended on an instance that could not forget them.
        try run("DELETE FROM party_players WHERE party_id NOT IN (SELECT id FROM parties WHERE ended_at IS NULL)", [])
    }

    /// The Spotify Web Playback SDK device the party's TV registered on any instance.
    public func sdkDevice(partyId: String) throws -> String? {
        try run("SELECT sdk_device_id FROM party_players WHERE party_id = ?", [.text(partyId)]).first?.text("sdk_device_id")
    }

    public func setSDKDevice(_ deviceId: String, partyId: String) throws {
        try run("""
            INSERT INTO party_players (party_id, sdk_device_id) VALUES (?, ?)
            ON CONFLICT (party_id) DO UPDATE SET sdk_device_id = excluded.sdk_device_id
            """, [.text(partyId), .text(deviceId)])
    }

    /// The address of the original web player registered as the party's device on any instance (nil: a TV, or none).
    public func webPlayerAddress(partyId: String) throws -> String? {
        try run("SELECT web_player_address FROM party_players WHERE party_id = ?", [.text(partyId)]).first?.text("web_player_address")
    }

    /// Every party with a web player as its device, and the player's address.
    public func webPlayerAddresses() throws -> [String: String] {
        var addresses: [String: String] = [:]
        for row in try run("SELECT party_id, web_player_address FROM party_players WHERE web_player_address IS NOT NULL", []) {
            if let partyId = row.text("party_id"), let address = row.text("web_player_address") { addresses[partyId] = address }
        }
        return addresses
    }

    public func setWebPlayerAddress(_ address: String?, partyId: String) throws {
        try run("""
            INSERT INTO party_players (party_id, web_player_address) VALUES (?, ?)
            ON CONFLICT (party_id) DO UPDATE SET web_player_address = excluded.web_player_address
            """, [.text(partyId), address.map { .text($0) } ?? .null])
    }

    /// Records `active` as the party's announced `deviceActive`: true when it changed (no announcement yet counts as
    /// false), so that exactly one instance announces each change.
    public func announce(active: Bool, partyId: String) throws -> Bool {
        _ = try run("INSERT INTO party_players (party_id) VALUES (?) ON CONFLICT (party_id) DO NOTHING", [.text(partyId)])
        return try !run("""
            UPDATE party_players SET announced_active = ? WHERE party_id = ? AND COALESCE(announced_active, 0) <> ?
            RETURNING party_id
            """, [.integer(active ? 1 : 0), .text(partyId), .integer(active ? 1 : 0)]).isEmpty
    }

    /// The monitor tokens the party's TVs held before they were replaced, newest last.
    public func retiredMonitorTokens(partyId: String) throws -> [String] {
        let text = try run("SELECT retired_monitor_tokens FROM party_players WHERE party_id = ?", [.text(partyId)]).first?
            .text("retired_monitor_tokens") ?? ""
        return text.split(separator: " ").map(String.init)
    }

    /// Keeps `tokens` (the newest few) as the party's retired monitor tokens.
    public func setRetiredMonitorTokens(_ tokens: [String], partyId: String) throws {
        try run("""
            INSERT INTO party_players (party_id, retired_monitor_tokens) VALUES (?, ?)
            ON CONFLICT (party_id) DO UPDATE SET retired_monitor_tokens = excluded.retired_monitor_tokens
            """, [.text(partyId), .text(tokens.joined(separator: " "))])
    }

    private static func record(_ row: Row, at now: Date) -> PresenceRecord {
        let live = (row.date("streams_until") ?? now) > now
        return PresenceRecord(streams: live ? Int(row.integer("streams") ?? 0) : 0, lastHeartbeat: row.date("last_heartbeat"),
                              lastStreamClosed: row.date("last_stream_closed"), reports: row.bool("reports"),
                              heardAt: row.date("heard_at"), positionMs: row.integer("position_ms").map { Int($0) },
                              reportedAt: row.date("reported_at"), updatedAt: row.date("updated_at") ?? now)
    }

    private static func array(_ shards: [Int]) -> String { "{" + shards.map(String.init).joined(separator: ",") + "}" }

    @discardableResult
    private func run(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row] {
        try connection.withLock { connection throws(DatabaseError) in try connection.runReconnecting(sql, values) }
    }
}
