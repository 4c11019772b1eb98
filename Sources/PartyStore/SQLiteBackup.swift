import Foundation
import CSQLite

/// Copies of the SQLite database while a server writes it, and their checks. A copy is `VACUUM INTO` on a
/// connection of its own: one read transaction, so it holds exactly the commits before it began (WAL readers never
/// block the server's writer, nor it them), written compact to a new file.
public enum SQLiteBackup {
    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Writes a consistent copy of the database at `databasePath` to `target`, which must not exist yet. The copy
    /// goes to a neighbour file first and is renamed into place once complete and checked: `target` is whole or absent.
    public static func copy(databasePath: String, to target: String) throws(Failure) {
        guard !FileManager.default.fileExists(atPath: target) else { throw Failure(description: "\(target) exists: name a new file") }
        guard FileManager.default.fileExists(atPath: databasePath) else { throw Failure(description: "no database at \(databasePath)") }
        let partial = target + ".partial"
        unlink(partial)
        let handle = try open(databasePath, readOnly: true)
        defer { sqlite3_close_v2(handle) }
        let quoted = "'" + partial.replacingOccurrences(of: "'", with: "''") + "'"
        try execute(handle, "VACUUM INTO \(quoted)")
        let verdict = try integrityCheck(path: partial)
        guard verdict == "ok" else {
            unlink(partial)
            throw Failure(description: "the copy failed its integrity check: \(verdict)")
        }
        guard rename(partial, target) == 0 else { throw Failure(description: "cannot rename \(partial): \(String(cString: strerror(errno)))") }
    }

    /// `PRAGMA integrity_check`'s answer for the database file at `path`: "ok", or what is wrong.
    public static func integrityCheck(path: String) throws(Failure) -> String {
        let handle = try open(path, readOnly: true)
        defer { sqlite3_close_v2(handle) }
        return try rows(handle, "PRAGMA integrity_check").joined(separator: "; ")
    }

    /// Whether the file is a MusicVoting database (it has the parties table).
    public static func isPartyDatabase(path: String) -> Bool {
        guard let handle = try? open(path, readOnly: true) else { return false }
        defer { sqlite3_close_v2(handle) }
        return (try? rows(handle, "SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'parties'"))?.isEmpty == false
    }

    /// Copies what the database's log holds back into the file and removes the log, so the file alone is the whole
    /// database (SQLite does it when the last connection closes; this opens and closes one).
    public static func foldLog(databasePath: String) throws(Failure) {
        guard FileManager.default.fileExists(atPath: databasePath) else { return }
        let handle = try open(databasePath, readOnly: false)
        defer { sqlite3_close_v2(handle) }
        _ = try rows(handle, "PRAGMA wal_checkpoint(TRUNCATE)")
    }

    private static func open(_ path: String, readOnly: Bool) throws(Failure) -> OpaquePointer {
        _ = Database.configured
        var raw: OpaquePointer?
        let flags = (readOnly ? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE) | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &raw, flags, nil)
        guard status == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(raw)
            throw Failure(description: "\(path): \(message)")
        }
        // The server's checkpointer may hold the database for a moment.
        sqlite3_busy_timeout(raw, 10_000)
        return raw
    }

    private static func execute(_ handle: OpaquePointer, _ sql: String) throws(Failure) {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
    }

    /// The first column of every row of `sql`, as text.
    private static func rows(_ handle: OpaquePointer, _ sql: String) throws(Failure) -> [String] {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw Failure(description: String(cString: sqlite3_errmsg(handle)))
        }
        defer { sqlite3_finalize(statement) }
        var texts: [String] = []
        while true {
            let step = sqlite3_step(statement)
            if step == SQLITE_DONE { return texts }
            guard step == SQLITE_ROW else { throw Failure(description: String(cString: sqlite3_errmsg(handle))) }
            texts.append(sqlite3_column_text(statement, 0).map { String(cString: $0) } ?? "")
        }
    }
}
