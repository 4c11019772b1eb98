/// A failed SQLite call, with SQLite's own message and the statement that failed.
public struct DatabaseError: Error, CustomStringConvertible, Sendable {
    public let code: Int32
    public let message: String
    /// The SQL that failed, when a statement did (so a log line says which query broke).
    public let sql: String?

    public init(code: Int32, message: String, sql: String? = nil) {
        self.code = code
        self.message = message
        self.sql = sql
    }

    public var description: String {
        let statement = sql.map { " in `" + $0.split(whereSeparator: \.isWhitespace).joined(separator: " ") + "`" } ?? ""
        return "SQLite error \(code): \(message)\(statement)"
    }
}
