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
    /// Statements without parameters, several at once (migrations).
    func execute(_ sql: String) throws(DatabaseError)
    /// Runs `body` in one transaction and rolls back when it throws; nested, a savepoint.
    func transaction<T>(_ body: () throws -> T) throws -> T
}
