/// Everything the SQL of SQLite and PostgreSQL differs in, in one place (SQLKit's idea): the schema and the
/// queries are written once, in SQLite's spelling with `?` parameters, and take these words where they differ.
struct SQLDialect: Sendable {
    /// A 64-bit integer column (SQLite's INTEGER is 64-bit already; PostgreSQL's is 32-bit).
    let integer: String
    /// Dates: seconds since 1970 as a double in both.
    let real: String
    let autoincrementPrimaryKey: String
    /// SQLite stores tables keyed by their primary key alone without a hidden rowid; PostgreSQL always does.
    let withoutRowID: String
    /// An explicit `rowid` column for tables whose queries order by insertion (SQLite has one implicitly).
    let rowIDColumn: String
    /// `?` and `?N` become `$1 …` (PostgreSQL) or stay (SQLite).
    let numbersParameters: Bool
    /// How an `INSERT` hands back its new `id`: `RETURNING id`, or nil for `sqlite3_last_insert_rowid`.
    let returningID: String?
    let beginTransaction: String
    /// Where the count of applied migrations lives.
    let readSchemaVersion: String
    let prepareSchemaVersion: String?
    let writeSchemaVersion: @Sendable (Int) -> String
    /// What keeps `parties.version` moving with every write to a party's rows, when several processes
    /// share the database (PostgreSQL: triggers). SQLite has one writer and keys its caches by its change counter.
    let partyVersionTriggers: String
    /// Migration 10: the crowd's tables move their party's version too.
    let crowdVersionTriggers: String
    /// Locks a party's row until the transaction ends, so writes of one party from several processes take turns
    /// (SQLite's `BEGIN IMMEDIATE` already serializes every write).
    let lockParty: String?
    /// Tables whose rows may go in a database crash (limit counts: they restart from zero), written without the
    /// write-ahead log on PostgreSQL. SQLite never uses them (one instance keeps its limit counts in memory).
    let unlogged: String
    /// The event log's numbers (`PartyStore+Events.swift`). PostgreSQL: from the party's counter, whose row stays
    /// locked until commit, so numbers follow commit order across instances. SQLite (one writer): from the log itself,
    /// and no row is rewritten per batch (the counter's `UPDATE` and its page were a fourteenth of a like's commit);
    /// the counter holds what a prune emptied.
    let eventNumbers: EventNumbers
    /// R17: a like (`like`) or its removal (`unlike`) together with its entry's count, in one statement that returns
    /// the new count, or no row when nothing changed (PostgreSQL: a data-modifying `WITH`, one round trip where two
    /// were). nil: the vote and the count one by one (SQLite, where a statement is a call, not a round trip).
    var voteWithCount: (like: String, unlike: String)? = nil
    /// Whether the numbers of appended events are taken in the statement that inserts them (PostgreSQL: one round
    /// trip instead of two per batch and party).
    var numbersEventsInInsert = false

    struct EventNumbers: Sendable {
        /// Takes `?1` numbers for party `?2`: the newest before them.
        let take: String
        /// The party `?1`'s newest number.
        let newest: String
        /// Before a prune: what keeps a log the prune empties from giving its numbers out again.
        let keepBeforePrune: String?
    }

    /// Makes an unlogged table keep its rows through a crash again (nothing to do on SQLite).
    func logged(_ table: String) -> String { unlogged.isEmpty ? "" : "ALTER TABLE \(table) SET LOGGED;" }

    static let sqlite = SQLDialect(
        integer: "INTEGER", real: "REAL", autoincrementPrimaryKey: "INTEGER PRIMARY KEY AUTOINCREMENT",
        withoutRowID: " WITHOUT ROWID", rowIDColumn: "", numbersParameters: false, returningID: nil,
        // IMMEDIATE takes the write lock at BEGIN: no deadlock between two readers that both upgrade.
        beginTransaction: "BEGIN IMMEDIATE",
        readSchemaVersion: "PRAGMA user_version", prepareSchemaVersion: nil,
        writeSchemaVersion: { "PRAGMA user_version = \($0)" }, partyVersionTriggers: "", crowdVersionTriggers: "", lockParty: nil,
        unlogged: "", eventNumbers: EventNumbers(
            take: """
                SELECT MAX(last_event_seq, COALESCE((SELECT MAX(seq) FROM party_events WHERE party_id = ?2), 0)) AS newest
                FROM parties WHERE id = ?2
                """,
            newest: """
                SELECT MAX(last_event_seq, COALESCE((SELECT MAX(seq) FROM party_events WHERE party_id = ?1), 0)) AS last_event_seq
                FROM parties WHERE id = ?1
                """,
            // The newest numbers into the counters first, which the prune's `DELETE` then counts back from.
            keepBeforePrune: """
                UPDATE parties SET last_event_seq = (SELECT MAX(seq) FROM party_events WHERE party_id = parties.id)
                WHERE last_event_seq < (SELECT MAX(seq) FROM party_events WHERE party_id = parties.id)
                """))

    static let postgreSQL = SQLDialect(
        integer: "BIGINT", real: "DOUBLE PRECISION", autoincrementPrimaryKey: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        withoutRowID: "", rowIDColumn: ",\n    rowid BIGINT GENERATED ALWAYS AS IDENTITY", numbersParameters: true,
        returningID: "RETURNING id", beginTransaction: "BEGIN",
        readSchemaVersion: "SELECT COALESCE(MAX(version), 0) AS user_version FROM schema_version",
        prepareSchemaVersion: "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
        writeSchemaVersion: { "DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (\($0))" },
        partyVersionTriggers: postgreSQLPartyVersionTriggers, crowdVersionTriggers: postgreSQLCrowdVersionTriggers,
        lockParty: "SELECT id FROM parties WHERE id = ? FOR UPDATE", unlogged: "UNLOGGED ", eventNumbers: EventNumbers(
            take: "UPDATE parties SET last_event_seq = last_event_seq + ?1 WHERE id = ?2 RETURNING last_event_seq - ?1 AS newest",
            newest: "SELECT last_event_seq FROM parties WHERE id = ?1", keepBeforePrune: nil),
        voteWithCount: (
            like: """
                WITH added AS (INSERT INTO votes (entry_id, device_id) VALUES (?1, ?2) ON CONFLICT DO NOTHING RETURNING entry_id)
                UPDATE queue_entries SET like_count = like_count + 1 WHERE id = (SELECT entry_id FROM added) RETURNING like_count
                """,
            unlike: """
                WITH removed AS (DELETE FROM votes WHERE entry_id = ?1 AND device_id = ?2 RETURNING entry_id)
                UPDATE queue_entries SET like_count = like_count - 1 WHERE id = (SELECT entry_id FROM removed) RETURNING like_count
                """),
        numbersEventsInInsert: true)

    /// Every write to a party's row or to a row that belongs to it moves `parties.version` on (a party's own update
    /// adds one in place; a child row's change updates its party, which adds one too). Votes name their entry only.
    private static let postgreSQLPartyVersionTriggers = """
        CREATE FUNCTION party_version_own() RETURNS trigger LANGUAGE plpgsql AS $$
        BEGIN NEW.version := OLD.version + 1; RETURN NEW; END $$;
        CREATE TRIGGER parties_version BEFORE UPDATE ON parties FOR EACH ROW EXECUTE FUNCTION party_version_own();
        \(rowVersionFunctions(create: "CREATE FUNCTION", condition: ""))
        CREATE TRIGGER queue_entries_version AFTER INSERT OR UPDATE OR DELETE ON queue_entries
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        CREATE TRIGGER blacklist_version AFTER INSERT OR UPDATE OR DELETE ON blacklist
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        CREATE TRIGGER played_version AFTER INSERT OR UPDATE OR DELETE ON played
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        CREATE TRIGGER played_counts_version AFTER INSERT OR UPDATE OR DELETE ON played_counts
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        CREATE TRIGGER votes_version AFTER INSERT OR UPDATE OR DELETE ON votes
            FOR EACH ROW EXECUTE FUNCTION party_version_vote();
        """

    /// The row triggers' functions (migration 9): a child row's party, or a vote's through its entry, moves on.
    /// `create` makes them or, in a later migration, replaces them; `condition` narrows their `UPDATE`.
    private static func rowVersionFunctions(create: String, condition: String) -> String {
        """
        \(create) party_version_child() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE row_party TEXT;
        BEGIN
            IF TG_OP = 'DELETE' THEN row_party := OLD.party_id; ELSE row_party := NEW.party_id; END IF;
            UPDATE parties SET version = version + 1 WHERE id = row_party\(condition);
            RETURN NULL;
        END $$;
        \(create) party_version_vote() RETURNS trigger LANGUAGE plpgsql AS $$
        DECLARE vote_entry BIGINT;
        BEGIN
            IF TG_OP = 'DELETE' THEN vote_entry := OLD.entry_id; ELSE vote_entry := NEW.entry_id; END IF;
            UPDATE parties SET version = version + 1 WHERE id = (SELECT party_id FROM queue_entries WHERE id = vote_entry)\(condition);
            RETURN NULL;
        END $$;
        """
    }

    /// The statement triggers' functions (migration 25), each over its statement's changed rows; as `rowVersionFunctions`.
    private static func statementVersionFunctions(create: String, condition: String) -> [String] {
        let owners = [("party_version_rows", "SELECT party_id FROM changed_rows"),
                      ("party_version_vote_rows", "SELECT party_id FROM queue_entries WHERE id IN (SELECT entry_id FROM changed_rows)")]
        return owners.map { name, parties in
            """
            \(create) \(name)() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE parties SET version = version + 1 WHERE id IN (\(parties))\(condition); RETURN NULL; END $$;
            """
        }
    }

    /// Vetoes name their entry, like votes; bans and guests' activity (the veto's threshold) name their party.
    private static let postgreSQLCrowdVersionTriggers = """
        CREATE TRIGGER vetoes_version AFTER INSERT OR UPDATE OR DELETE ON vetoes
            FOR EACH ROW EXECUTE FUNCTION party_version_vote();
        CREATE TRIGGER bans_version AFTER INSERT OR UPDATE OR DELETE ON bans
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        CREATE TRIGGER guest_activity_version AFTER INSERT OR UPDATE OR DELETE ON guest_activity
            FOR EACH ROW EXECUTE FUNCTION party_version_child();
        """

    /// Migration 25: the version triggers of migrations 9, 10 and 23 once per statement instead of once per row. A
    /// group commit's likes write a party's votes, counts and guests' activity in one statement each (R17); per row,
    /// each of those rows rewrote the party's row, about sixteen times per batch. The changed rows come as the
    /// statement's transition table (one trigger per kind of change: PostgreSQL allows no more per trigger). A
    /// trigger on a column (`guests`' nickname) stays per row: a transition table cannot go with a column list.
    var statementVersionTriggers: String {
        guard !partyVersionTriggers.isEmpty else { return "" }
        let functions = Self.statementVersionFunctions(create: "CREATE FUNCTION", condition: "")
        let tables = [("queue_entries", "party_version_rows"), ("blacklist", "party_version_rows"), ("played", "party_version_rows"),
                      ("played_counts", "party_version_rows"), ("votes", "party_version_vote_rows"), ("vetoes", "party_version_vote_rows"),
                      ("bans", "party_version_rows"), ("guest_activity", "party_version_rows"), ("pending_songs", "party_version_rows"),
                      ("approved_adders", "party_version_rows")]
        let triggers = tables.map { table, function in
            ["DROP TRIGGER \(table)_version ON \(table);"]
                + [("INSERT", "NEW"), ("UPDATE", "NEW"), ("DELETE", "OLD")].map { change, rows in
                    "CREATE TRIGGER \(table)_\(change.lowercased())_version AFTER \(change) ON \(table) REFERENCING \(rows) TABLE AS changed_rows "
                        + "FOR EACH STATEMENT EXECUTE FUNCTION \(function)();"
                }
        }
        return (functions + triggers.joined()).joined(separator: "\n")
    }

    /// Migration 26: a party's version moves once per transaction, not once per statement: a trigger leaves alone a
    /// party row this transaction already rewrote (its `xmin` is the transaction's own id), so a group commit's likes
    /// rewrite their party's row once for the votes, counts, guests and activity together, where each of those
    /// statements rewrote it again (with the event log's counter, six rewrites of one row per batch). Readers of
    /// another instance see the version move with the commit, as before; inside a transaction the instance's own
    /// reads go by its connection's write count (`ReadCache`). A row rewritten in a savepoint has the savepoint's id
    /// and is moved again: only ever one move too many.
    var versionOncePerTransaction: String {
        guard !partyVersionTriggers.isEmpty else { return "" }
        let notYet = " AND xmin <> pg_current_xact_id()::xid"
        return (Self.statementVersionFunctions(create: "CREATE OR REPLACE FUNCTION", condition: notYet)
                + [Self.rowVersionFunctions(create: "CREATE OR REPLACE FUNCTION", condition: notYet)]).joined(separator: "\n")
    }

    /// A table whose rows belong to a party (a `party_id` column) moves its party's version like the tables of
    /// migration 9 (nothing on SQLite, which keys its caches by its own writes).
    /// With `whenColumnChanges`, only an update of that column does.
    func versionTrigger(forChildTable table: String, whenColumnChanges column: String? = nil) -> String {
        guard !partyVersionTriggers.isEmpty else { return "" }
        let events = column.map { "UPDATE OF \($0)" } ?? "INSERT OR UPDATE OR DELETE"
        return "CREATE TRIGGER \(table)_\(column.map { $0 + "_" } ?? "")version AFTER \(events) ON \(table) FOR EACH ROW EXECUTE FUNCTION party_version_child();"
    }

    /// `sql` with numbered parameters when this dialect wants them (`?` counts up, `?N` keeps its number).
    /// Quoted text is left alone. Run once per distinct statement: the connections cache the result.
    func parameters(_ sql: String) -> String {
        guard numbersParameters else { return sql }
        var result = ""
        var next = 0
        var quoted = false
        var characters = sql.makeIterator()
        var pending = characters.next()
        while let character = pending {
            pending = characters.next()
            if character == "'" { quoted.toggle() }
            guard character == "?", !quoted else { result.append(character); continue }
            var digits = ""
            while let digit = pending, digit.isASCII, digit.isNumber {
                digits.append(digit)
                pending = characters.next()
            }
            if digits.isEmpty { next += 1; digits = String(next) }
            result += "$" + digits
        }
        return result
    }
}
