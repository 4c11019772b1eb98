import Foundation
import CSQLite

/// Owns one SQLite connection. Not thread-safe by itself: `PartyStore` is its one serial owner.
final class Database: SQLConnection {
    private let handle: OpaquePointer
    private var statements: [String: Statement] = [:]
    private let checkpointer: Checkpointer
    var dialect: SQLDialect { .sqlite }

    /// `checkpointPages`: the log's length that starts copying it back (`checkpointPages`; tests use less).
    init(path: String, checkpointPages: Int32 = Database.checkpointPages) throws(DatabaseError) {
        let raw = try Self.open(path, creating: true)
        handle = raw
        do { checkpointer = try Checkpointer(path: path, pages: checkpointPages) } catch { sqlite3_close(raw); throw error }
        Self.waitWhileBusy(handle, milliseconds: 5_000)
        // WAL with synchronous=FULL: a commit returns once the log is synced, so an acknowledged like survives a
        // power cut as well as a kill (R7: a restart loses nothing), and readers never block the writer. A
        // group commit syncs once for its whole batch, so the sync costs a batch, not a like.
        try execute("PRAGMA journal_mode=WAL")
        try execute("PRAGMA synchronous=FULL")
        // A transaction's pages stay in memory until its commit (ours are small; a large one uses more memory):
        // SQLite 3.40.1 (Debian 12) loses commits on kill -9 after a spilled page was rewritten in a savepoint that
        // rolled back (wal.c keeps `iReCksum` across ROLLBACK TO; the next commit's frames go out with zero checksums,
        // and recovery drops them and every later commit of that log). Group commits roll back to a savepoint
        // whenever one write of a batch fails.
        try execute("PRAGMA cache_spill=OFF")
        // Instead of SQLite's automatic checkpoint (`PRAGMA wal_autocheckpoint`, the same hook).
        sqlite3_wal_hook(handle, { context, writer, name, frames in
            if Unmanaged<Checkpointer>.fromOpaque(context!).takeUnretainedValue().committed(frames: frames) {
                sqlite3_wal_checkpoint_v2(writer, name, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
            }
            return SQLITE_OK
        }, Unmanaged.passUnretained(checkpointer).toOpaque())
        try execute("PRAGMA foreign_keys=ON")
    }

    /// WAL pages between checkpoints (SQLite's default: 1,000). A group commit rewrites the same hot pages (a song's
    /// likes, the event log) batch after batch; copied back ten times less often, each is copied once where it was
    /// copied several times (12,000 -> 17,000 likes/s when it was measured). The WAL file grows to about
    /// 40 MB and stays that size; `Tests/Benchmarks/bench.py`'s SQLite anchor uses the same setting.
    static let checkpointPages: Int32 = 10_000

    /// The log's length in pages after the last commit, and its checkpointer (tests).
    var loggedFrames: Int32 { checkpointer.loggedFrames }
    func waitForCheckpoint() { checkpointer.waitUntilIdle() }

    /// What SQLite counts as allocated: 0 while it keeps no memory statistics (`configured`; tests).
    static var countedMemory: Int64 { sqlite3_memory_used() }

    deinit { sqlite3_close_v2(handle) }

    /// SQLite's process-wide settings, made once before its first connection (every opener reads it first).
    static let configured: Void = { _ = mv_sqlite_disable_memory_statistics() }()

    /// A connection to the file at `path` (`creating`: the file too, if missing).
    static func open(_ path: String, creating: Bool) throws(DatabaseError) -> OpaquePointer {
        _ = configured
        var raw: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX | (creating ? SQLITE_OPEN_CREATE : 0)
        let status = sqlite3_open_v2(path, &raw, flags, nil)
        guard status == SQLITE_OK, let raw else {
            let message = raw.map { String(cString: sqlite3_errmsg($0)) } ?? "cannot open \(path)"
            sqlite3_close(raw)
            throw DatabaseError(code: status, message: message)
        }
        return raw
    }

    /// Waits up to `milliseconds` for a lock another connection holds: looking every 200 us for the first 10 ms (the
    /// checkpointer holds the writer off for a few; `sqlite3_busy_timeout` sleeps 1, 2, 5, 10 ms between looks),
    /// then every 5 ms.
    static func waitWhileBusy(_ handle: OpaquePointer, milliseconds: Int) {
        sqlite3_busy_handler(handle, { limit, attempts in
            let waited = attempts < 50 ? Int(attempts) / 5 : 10 + (Int(attempts) - 50) * 5
            guard waited < Int(bitPattern: limit) else { return 0 }
            usleep(attempts < 50 ? 200 : 5_000)
            return 1
        }, UnsafeMutableRawPointer(bitPattern: milliseconds))
    }

    /// Folds the write-ahead log into the database file and empties it (on shutdown: the folder then holds one
    /// complete file), after the checkpointer's pass: a checkpoint that meets another one does nothing and says so
    /// only in its `busy` column.
    func checkpoint() throws(DatabaseError) {
        checkpointer.waitUntilIdle()
        if try run("PRAGMA wal_checkpoint(TRUNCATE)").first?.integer("busy") != 0 {
            throw DatabaseError(code: SQLITE_BUSY, message: "the write-ahead log is in use and was not folded into the database")
        }
    }

    func execute(_ sql: String) throws(DatabaseError) {
        var errorMessage: UnsafeMutablePointer<CChar>?
        let status = sqlite3_exec(handle, sql, nil, nil, &errorMessage)
        if status != SQLITE_OK {
            let message = errorMessage.map { String(cString: $0) } ?? "unknown"
            sqlite3_free(errorMessage)
            throw DatabaseError(code: status, message: message, sql: sql)
        }
    }

    /// Prepared once and kept, like `run`'s statements (a group commit opens a savepoint per write, and
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
    /// SQLite counts every row a statement changed, whatever it answers.
    func noteWritten() {}

    func error(_ status: Int32, sql: String? = nil) -> DatabaseError {
        DatabaseError(code: status, message: String(cString: sqlite3_errmsg(handle)), sql: sql)
    }
}
