/// One database connection as the store uses it, whatever the backend: SQLite's `Database` or
/// `PostgreSQLConnection`. The store writes its SQL once in SQLite's spelling; a connection runs it in its
/// dialect. Not thread-safe: the store's one serial owner reaches it.
protocol SQLConnection: AnyObject {
    var dialect: SQLDialect { get }
    /// Runs one parameterized statement (prepared or translated once per distinct `sql`) and returns its rows.
    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row]
    /// Runs an `INSERT` and returns the `id` it gave the new row.
    func insert(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> Int64
    /// Rows the last statement inserted, updated or deleted.
    var changes: Int { get }
    /// Grows with every write this connection makes: what was read at one value is still true at the same value.
    var writeVersion: Int64 { get }
    /// A statement that answered rows wrote too (a data-modifying `WITH` on PostgreSQL): `writeVersion` moves on.
    func noteWritten()
    /// Statements without parameters, several at once (migrations).
    func execute(_ sql: String) throws(DatabaseError)
    /// One statement without parameters that a transaction repeats (`BEGIN`, `SAVEPOINT nested`, `COMMIT`).
    func control(_ sql: String) throws(DatabaseError)
    /// Whether a transaction is open (a new one inside it is a savepoint).
    var isInTransaction: Bool { get }
    /// Throws when the open transaction cannot commit what `body` meant (PostgreSQL after a failed statement).
    func checkCommittable() throws(DatabaseError)
    /// SQLite: folds the write-ahead log into the database file. PostgreSQL manages its own log: nothing to do.
    func checkpoint() throws(DatabaseError)
}

extension SQLConnection {
    /// Runs `body` in one transaction and rolls back when it throws. Inside another transaction it is a
    /// savepoint, so a playback transition that calls a helper with its own transaction commits as one.
    func transaction<T>(_ body: () throws -> T) throws -> T {
        let nested = isInTransaction
        try control(nested ? "SAVEPOINT nested" : dialect.beginTransaction)
        do {
            let result = try body()
            try checkCommittable()
            try control(nested ? "RELEASE nested" : "COMMIT")
            return result
        } catch {
            if nested { try? control("ROLLBACK TO nested") }
            try? control(nested ? "RELEASE nested" : "ROLLBACK")
            throw error
        }
    }
}
