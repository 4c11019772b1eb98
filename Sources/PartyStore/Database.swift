import Foundation
import CSQLite

/// Owns one SQLite connection. Not thread-safe by itself: `PartyStore` is its one serial owner.
final class Database: SQLConnection {
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    var dialect: SQLDialect { .sqlite }

    init(path: String) throws(DatabaseError) {
        var raw: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &raw, flags, nil)
        guard status == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(raw)
            throw DatabaseError(code: status, message: message)
        }
        handle = raw
        sqlite3_busy_timeout(handle, 5000)
        // WAL with synchronous=NORMAL: a committed transaction survives the process being killed
        // (only an OS crash may lose the last commits), and readers never block the writer.
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=NORMAL")
        try execute("PRAGMA wal_autocheckpoint=\(Self.checkpointPages)")
        try execute("PRAGMA foreign_keys=ON")
    }

    /// WAL pages between checkpoints (SQLite's default: 1,000). A group commit rewrites the same hot pages (a song's
    /// likes, the event log) batch after batch; copied back ten times less often, each is copied once where it was
    /// copied several times (issue 28: 12,000 -> 17,000 likes/s when it was measured). The WAL file grows to about
    /// 40 MB and stays that size; `Tests/Benchmarks/bench.py`'s SQLite anchor uses the same setting.
    static let checkpointPages = 10_000

    deinit { sqlite3_close_v2(handle) }

    func execute(_ sql: String) throws(DatabaseError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(errorMessage)
            throw DatabaseError(code: status, message: message, sql: sql)
        }
    }

    /// Prepared once and kept, like `run`'s statements (issue 28: a group commit opens a savepoint per write, and
    /// `sqlite3_exec` parsed each one anew).
    func control(_ sql: String) throws(DatabaseError) {
        try run(sql)
    }

    func prepare(_ sql: String) throws(DatabaseError) -> Statement {
        var raw: OpaquePointer?
        let status = sqlite3_prepare_v2(handle, sql, -1, &raw, nil)
        guard status == SQLITE_OK, let raw else { throw error(status, sql: sql) }
        return Statement(handle: raw, sql: sql, database: self)
    }

    var isInTransaction: Bool { sqlite3_get_autocommit(handle) == 0 }

    /// SQLite commits what succeeded; nothing to check.
    func checkCommittable() throws(DatabaseError) {}

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws(DatabaseError) -> [Row] {
        if let statement = statements[sql] { return try statement.run(values) }
        let statement = try prepare(sql)
        statements[sql] = statement
        return try statement.run(values)
    }

    func insert(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> Int64 {
        try run(sql, values)
        return sqlite3_last_insert_rowid(handle)
    }

    var changes: Int { Int(sqlite3_changes(handle)) }

    /// Rows inserted, updated or deleted through this connection since it opened (the database's only writer).
    var writeVersion: Int64 { sqlite3_total_changes64(handle) }

    func error(_ status: Int32, sql: String? = nil) -> DatabaseError {
        DatabaseError(code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
