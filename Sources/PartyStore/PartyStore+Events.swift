import Foundation

/// One event of a party's log: the `data:` JSON as sent, and who may hear it.
public struct LoggedEvent: Sendable, Equatable {
    /// The party's own sequence number: the SSE `id:`, the same on every instance.
    public var sequence: Int64
    public var type: String
    /// The serialized message (`{"type", "timestamp", "payload"}`), exactly the bytes of the `data:` line.
    public var message: String
    /// A scoped event (`login-success`) reaches only streams of this source (and installation).
    public var audienceSource: String?
    public var audienceInstallationId: String?
    public var createdAt: Date

    public init(sequence: Int64 = 0, type: String, message: String, audienceSource: String? = nil,
                audienceInstallationId: String? = nil, createdAt: Date) {
        self.sequence = sequence
        self.type = type
        self.message = message
        self.audienceSource = audienceSource
        self.audienceInstallationId = audienceInstallationId
        self.createdAt = createdAt
    }
}

extension PartyStore {
    /// Appends `events` to the party's log and returns their sequence numbers, in order, following the party's newest;
    /// then one statement inserts every row. Call it inside the transaction of the change the events tell of. Where
    /// the numbers come from is the dialect's (`SQLDialect.eventNumbers`).
    public func appendEvents(_ events: [LoggedEvent], partyId: String) throws -> [Int64] {
        guard !events.isEmpty else { return [] }
        let count = Int64(events.count)
        // PostgreSQL: the numbers and the first rows in one statement.
        let insertedFirst = database.dialect.numbersEventsInInsert ? min(events.count, Self.rowsPerStatement) : 0
        let newest: Int64?
        if insertedFirst > 0 {
            var values: [SQLValue] = [.integer(count), .text(partyId)]
            values.reserveCapacity(2 + 5 * insertedFirst)
            for event in events.prefix(insertedFirst) {
                values += [.text(event.type), .text(event.message), .optional(event.audienceSource), .optional(event.audienceInstallationId),
                           .date(event.createdAt)]
            }
            newest = try run(Self.numberedEventInserts[insertedFirst - 1], values).first?.integer("newest")
            database.noteWritten()
        } else {
            newest = try run(database.dialect.eventNumbers.take, [.integer(count), .text(partyId)]).first?.integer("newest")
        }
        guard let newest else { throw DatabaseError(code: 0, message: "no party \(partyId) to log events for") }
        let last = newest + count
        let sequences = Array((last - count + 1)...last)
        // A group commit's batch logs many events: one statement for up to `rowsPerStatement` of them (a statement
        // per number of rows, each prepared once; on PostgreSQL each statement is a round trip).
        for chunk in Array(zip(events, sequences)).dropFirst(insertedFirst).chunks(of: Self.rowsPerStatement) {
            var values: [SQLValue] = []
            values.reserveCapacity(7 * chunk.count)
            for (event, sequence) in chunk {
                values += [.text(partyId), .integer(sequence), .text(event.type), .text(event.message), .optional(event.audienceSource),
                           .optional(event.audienceInstallationId), .date(event.createdAt)]
            }
            try run(Self.eventInserts[chunk.count - 1], values)
        }
        return sequences
    }

    /// Rows of one multi-row statement at most (a group commit's batch of 64 writes logs about as many events), here
    /// and in the instances' shared records.
    public static let rowsPerStatement = 64

    /// PostgreSQL: the party's next `?1` numbers taken and the first 1 … `rowsPerStatement` rows inserted with them.
    static let numberedEventInserts: [String] = (1...rowsPerStatement).map { rows in
        let values = (0..<rows).map { row in
            "(\(row + 1), " + (0..<5).map { "?\(3 + 5 * row + $0)" }.joined(separator: ", ") + ")"
        }
        return """
            WITH taken AS (UPDATE parties SET last_event_seq = last_event_seq + ?1 WHERE id = ?2 RETURNING last_event_seq - ?1 AS newest),
            added AS (
                INSERT INTO party_events (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
                SELECT ?2, taken.newest + v.position, v.type, v.message, v.audience_source, v.audience_installation_id, v.created_at
                FROM taken, (VALUES \(values.joined(separator: ", "))) AS v(position, type, message, audience_source, audience_installation_id, created_at))
            SELECT newest FROM taken
            """
    }

    /// The `INSERT` of events for 1 … `rowsPerStatement` rows (written once, not per batch).
    static let eventInserts: [String] = (1...rowsPerStatement).map { rows in
        """
        INSERT INTO party_events (party_id, seq, type, message, audience_source, audience_installation_id, created_at)
        VALUES \(Array(repeating: "(?, ?, ?, ?, ?, ?, ?)", count: rows).joined(separator: ", "))
        """
    }

    /// The party's newest sequence number (0 before its first event, nil for no such party). On SQLite the log's
    /// newest event (its index's last entry for the party), or the party's counter where that is higher: the number
    /// the log reached before this version, or before a prune emptied it (`pruneEvents` writes it there first).
    public func lastEventSequence(partyId: String) throws -> Int64? {
        try run(database.dialect.eventNumbers.newest, [.text(partyId)]).first.map { $0.integer("last_event_seq") ?? 0 }
    }

    /// The logged events after `sequence`, oldest first, at most `limit`.
    public func events(partyId: String, after sequence: Int64, limit: Int) throws -> [LoggedEvent] {
        try run("""
            SELECT seq, type, message, audience_source, audience_installation_id, created_at FROM party_events
            WHERE party_id = ? AND seq > ? ORDER BY seq LIMIT ?
            """, [.text(partyId), .integer(sequence), .integer(Int64(limit))]).map {
            LoggedEvent(sequence: $0.integer("seq") ?? 0, type: $0.text("type") ?? "", message: $0.text("message") ?? "",
                        audienceSource: $0.text("audience_source"), audienceInstallationId: $0.text("audience_installation_id"),
                        createdAt: $0.date("created_at") ?? Date(timeIntervalSince1970: 0))
        }
    }

    /// Deletes events that are both older than `cutoff` and not among their party's newest `keep`: each party keeps
    /// its last `keep` events and everything since `cutoff`. At most `limit` of them, so a large log is pruned in
    /// short steps (`PartyService.pruneEventLog`) that never hold the state lock or a statement long.
    @discardableResult
    public func pruneEvents(before cutoff: Date, keepingLast keep: Int, atMost limit: Int = Int(Int32.max)) throws -> Int {
        try atomically {
            if let keep = database.dialect.eventNumbers.keepBeforePrune { try run(keep) }
            // A join the planner runs once, not a subquery per row; the step's rows by their key.
            try run("""
                DELETE FROM party_events WHERE (party_id, seq) IN (
                    SELECT e.party_id, e.seq FROM party_events e JOIN parties p ON p.id = e.party_id
                    WHERE e.created_at < ? AND e.seq <= p.last_event_seq - ? LIMIT ?)
                """, [.date(cutoff), .integer(Int64(keep)), .integer(Int64(max(0, limit)))])
            return database.changes
        }
    }
}
