/// A failed database call, with the database's own message and the statement that failed.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    /// SQLite's result code; 0 for PostgreSQL, which names its errors by `sqlState`.
    public let code: Int32
    public let message: String
    /// The SQL that failed, when a statement did (so a log line says which query broke).
    public let sql: String?
    /// PostgreSQL's five-character SQLSTATE (`23505` a unique violation), nil for SQLite.
    public let sqlState: String?

    public init(code: Int32, message: String, sql: String? = nil, sqlState: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
        self.sqlState = sqlState
    }

    /// PostgreSQL cannot be reached (class 08, or the server is shutting down or starting): the request may succeed
    /// again in a moment, once the connection is opened again (503, never a hang).
    public var isConnectionFailure: Bool {
        guard let sqlState else { return false }
        return sqlState.hasPrefix("08") || ["57P01", "57P02", "57P03"].contains(sqlState)
    }

    /// The server ended a statement that ran or waited for a lock past the session's `statement_timeout` (57014), or
    /// a lock it would not wait for (55P03): the same request may succeed in a moment; the session is fine.
    public var isTimeout: Bool { sqlState == "57014" || sqlState == "55P03" }

    public var description: String {
        let statement = sql.map { " in `" + $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") + "`" } ?? ""
        let source = sqlState.map { "PostgreSQL error \($0)" } ?? "SQLite error \(code)"
        return "\(source): \(message)\(statement)"
    }
}
