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
    /// What shutdown runs to leave one complete file (SQLite's WAL), if anything.
    let checkpoint: String?
    /// Where the count of applied migrations lives.
    let readSchemaVersion: String
    let prepareSchemaVersion: String?
    let writeSchemaVersion: @Sendable (Int) -> String

    static let sqlite = SQLDialect(
        integer: "INTEGER", real: "REAL", autoincrementPrimaryKey: "INTEGER PRIMARY KEY AUTOINCREMENT",
        withoutRowID: " WITHOUT ROWID", rowIDColumn: "", numbersParameters: false, returningID: nil,
        // IMMEDIATE takes the write lock at BEGIN: no deadlock between two readers that both upgrade.
        beginTransaction: "BEGIN IMMEDIATE", checkpoint: "PRAGMA wal_checkpoint(TRUNCATE)",
        readSchemaVersion: "PRAGMA user_version", prepareSchemaVersion: nil,
        writeSchemaVersion: { "PRAGMA user_version = \($0)" })

    static let postgreSQL = SQLDialect(
        integer: "BIGINT", real: "DOUBLE PRECISION", autoincrementPrimaryKey: "BIGINT GENERATED ALWAYS AS IDENTITY PRIMARY KEY",
        withoutRowID: "", rowIDColumn: ",\n    rowid BIGINT GENERATED ALWAYS AS IDENTITY", numbersParameters: true,
        returningID: "RETURNING id", beginTransaction: "BEGIN", checkpoint: nil,
        readSchemaVersion: "SELECT COALESCE(MAX(version), 0) AS user_version FROM schema_version",
        prepareSchemaVersion: "CREATE TABLE IF NOT EXISTS schema_version (version BIGINT NOT NULL)",
        writeSchemaVersion: { "DELETE FROM schema_version; INSERT INTO schema_version (version) VALUES (\($0))" })

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
