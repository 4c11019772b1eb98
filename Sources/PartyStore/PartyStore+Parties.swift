import Foundation
import PartyCore

extension PartyStore {
    private static let partyColumns = """
        id, guest_pin, host_pin, provider, created_at, ended_at, default_playlist_id, current_entry_id,
        playback_started_at, paused_position_ms, is_playing, paused_by_host, last_advance_at, stall_reason, fair_queue, veto_share,
        host_token, history, approval, nicknames
        """
    /// What a read returns: the inserted columns and the counters the store keeps itself.
    private static let readColumns = partyColumns + ", wrong_pin_checks, host_join_misses"

    public func insert(_ party: Party) throws {
        try run("""
            INSERT INTO parties (\(Self.partyColumns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(party.id), .text(party.guestPin), .text(party.hostPin), .text(party.provider),
                  .date(party.createdAt), .optional(party.endedAt), .optional(party.defaultPlaylistId)]
                + Self.values(of: party.playback) + [.bool(party.settings.fairQueue), .real(party.settings.vetoShare), .optional(party.hostToken),
                                                   .bool(party.settings.history), .text(party.settings.approval.rawValue),
                                                   .bool(party.settings.nicknames)])
    }

    /// R9b, R17a, R33, R35, R36: the host's settings.
    public func save(settings: PartySettings, partyId: String) throws {
        try run("UPDATE parties SET fair_queue = ?, veto_share = ?, history = ?, approval = ?, nicknames = ? WHERE id = ?",
                [.bool(settings.fairQueue), .real(settings.vetoShare), .bool(settings.history), .text(settings.approval.rawValue),
                 .bool(settings.nicknames), .text(partyId)])
    }

    public func party(id: String) throws -> Party? {
        try run("SELECT \(Self.readColumns) FROM parties WHERE id = ?", [.text(id)]).first.map(Self.party)
    }

    public func parties(ids: [String]) throws -> [String: Party] {
        var found: [String: Party] = [:]
        for chunk in ids.chunks(of: Self.rowsPerStatement) {
            for row in try run(Self.partiesByIds[chunk.count - 1], chunk.map { .text($0) }) {
                let party = Self.party(row)
                found[party.id] = party
            }
        }
        return found
    }

    static let partiesByIds: [String] = (1...rowsPerStatement).map { count in
        "SELECT \(readColumns) FROM parties WHERE id IN (\(Array(repeating: "?", count: count).joined(separator: ", ")))"
    }

    /// The party as the open transaction's row lock leaves it: locked (`lockParty`) and read in one statement.
    public func lockedParty(id: String) throws -> Party? {
        guard database.dialect.lockParty != nil, database.isInTransaction else { return try party(id: id) }
        let party = try run("SELECT \(Self.readColumns) FROM parties WHERE id = ? FOR UPDATE", [.text(id)]).first.map(Self.party)
        noteLocked(partyId: id)
        return party
    }

    public func activeParty(guestPin: String) throws -> Party? {
        try run("SELECT \(Self.readColumns) FROM parties WHERE guest_pin = ? AND ended_at IS NULL",
                [.text(guestPin)]).first.map(Self.party)
    }

    public func activeParty(hostPin: String) throws -> Party? {
        try run("SELECT \(Self.readColumns) FROM parties WHERE host_pin = ? AND ended_at IS NULL",
                [.text(hostPin)]).first.map(Self.party)
    }

    /// R2: whether `pin` is a guest or host PIN of an active party. Two look-ups, one per partial unique
    /// index: an `OR` of both columns made SQLite scan the whole table.
    public func isPinTaken(_ pin: String) throws -> Bool {
        try Self.pinLookups.contains { try !run($0, [.text(pin)]).isEmpty }
    }

    public static let pinLookups = ["SELECT 1 FROM parties WHERE guest_pin = ? AND ended_at IS NULL",
                                    "SELECT 1 FROM parties WHERE host_pin = ? AND ended_at IS NULL"]

    /// Whether an active party of `provider` exists.
    public func hasActiveParty(provider: String) throws -> Bool {
        try !run("SELECT 1 FROM parties WHERE provider = ? AND ended_at IS NULL LIMIT 1", [.text(provider)]).isEmpty
    }

    /// Whether `trackId` waits or plays in an active party of `provider`.
    public func isQueued(trackId: String, provider: String) throws -> Bool {
        try !run("""
            SELECT 1 FROM queue_entries e JOIN parties p ON p.id = e.party_id
            WHERE e.track_id = ? AND p.provider = ? AND p.ended_at IS NULL LIMIT 1
            """, [.text(trackId), .text(provider)]).isEmpty
    }

    /// How many parties are active (not ended).
    public func activePartyCount() throws -> Int {
        Int(try run("SELECT COUNT(*) AS count FROM parties WHERE ended_at IS NULL").first?.integer("count") ?? 0)
    }

    /// The query plan SQLite picks for `sql`, for tests that pin an index down.
    public func queryPlan(_ sql: String) throws -> [String] {
        try run("EXPLAIN QUERY PLAN " + sql, [.text("00000")]).compactMap { $0.text("detail") }
    }

    public func activeParties() throws -> [Party] {
        try run("SELECT \(Self.readColumns) FROM parties WHERE ended_at IS NULL").map(Self.party)
    }

    public func save(playback: Playback, partyId: String) throws {
        try run("""
            UPDATE parties SET current_entry_id = ?, playback_started_at = ?, paused_position_ms = ?,
                is_playing = ?, paused_by_host = ?, last_advance_at = ?, stall_reason = ? WHERE id = ?
            """, Self.values(of: playback) + [.text(partyId)])
    }

    public func setDefaultPlaylist(_ playlistId: String?, partyId: String) throws {
        try run("UPDATE parties SET default_playlist_id = ? WHERE id = ?", [.optional(playlistId), .text(partyId)])
    }

    /// R5: empties the queue, deletes the provider tokens and marks the party ended.
    public func end(partyId: String, at now: Date) throws {
        try transaction {
            try run("DELETE FROM queue_entries WHERE party_id = ?", [.text(partyId)])
            try run("DELETE FROM pending_songs WHERE party_id = ?", [.text(partyId)])
            try run("DELETE FROM provider_tokens WHERE party_id = ?", [.text(partyId)])
            try run("""
                UPDATE parties SET ended_at = ?, current_entry_id = NULL, playback_started_at = NULL,
                    is_playing = 0, paused_position_ms = 0, monitor_token = NULL WHERE id = ?
                """, [.date(now), .text(partyId)])
        }
    }

    /// R24a: one more wrong host PIN evaluated for the party (its lifetime budget, `SecretGuard.lifetimeLimit`).
    public func countWrongPinCheck(partyId: String) throws {
        try run("UPDATE parties SET wrong_pin_checks = wrong_pin_checks + 1 WHERE id = ?", [.text(partyId)])
    }

    /// R24a: a wrong `host-join/{pin}` could have hit any active party: each counts it apart from its own budget.
    public func countHostJoinMissForEveryActiveParty() throws {
        try run("UPDATE parties SET host_join_misses = host_join_misses + 1 WHERE ended_at IS NULL")
    }

    /// R6: deletes every party (and, by cascade, its rows) that ended before `cutoff`.
    @discardableResult
    public func purge(endedBefore cutoff: Date) throws -> Int {
        try run("DELETE FROM parties WHERE ended_at IS NOT NULL AND ended_at < ?", [.date(cutoff)])
        return database.changes
    }

    private static func values(of playback: Playback) -> [SQLValue] {
        [.optional(playback.currentEntryId), .optional(playback.startedAt), .integer(Int64(playback.pausedPositionMs)),
         .bool(playback.isPlaying), .bool(playback.pausedByHost), .optional(playback.lastAdvanceAt),
         .optional(playback.isStalled ? playback.stallReason?.rawValue : nil)]
    }

    private static func party(_ row: Row) -> Party {
        Party(
            id: row.text("id") ?? "", guestPin: row.text("guest_pin") ?? "", hostPin: row.text("host_pin") ?? "",
            provider: row.text("provider") ?? "", createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
            endedAt: row.date("ended_at"), defaultPlaylistId: row.text("default_playlist_id"),
            playback: Playback(
                currentEntryId: row.integer("current_entry_id"), startedAt: row.date("playback_started_at"),
                pausedPositionMs: Int(row.integer("paused_position_ms") ?? 0), isPlaying: row.bool("is_playing"),
                pausedByHost: row.bool("paused_by_host"), lastAdvanceAt: row.date("last_advance_at"),
                stallReason: row.text("stall_reason").flatMap(StallReason.init(rawValue:))),
            wrongPinChecks: Int(row.integer("wrong_pin_checks") ?? 0), hostToken: row.text("host_token"),
            hostJoinMisses: Int(row.integer("host_join_misses") ?? 0),
            settings: PartySettings(fairQueue: row.bool("fair_queue"), vetoShare: row.real("veto_share") ?? 0,
                                    history: row.bool("history"),
                                    approval: row.text("approval").flatMap(ApprovalMode.init(rawValue:)) ?? .off,
                                    nicknames: row.bool("nicknames")))
    }
}
