import CSQLite
import Dispatch
import Synchronization

/// Copies the write-ahead log back into the database file on a connection and thread of its own. SQLite's
/// automatic checkpoint runs inside the commit that crosses the threshold: 10,000 pages read, written and synced
/// while every waiting write waits (28-53 ms on the benchmark box, every few tenths of a second in a like storm).
/// Here the writer waits only for the last pages and a sync (5-30 ms measured).
final class Checkpointer: Sendable {
    /// The connection, used only on `queue` (one pass at a time) after `init`.
    private nonisolated(unsafe) let handle: OpaquePointer
    private let queue = DispatchQueue(label: "musicvoting.checkpoint")
    private let running = Atomic<Bool>(false)
    private let frames = Atomic<Int32>(0)
    /// The log's length that starts the next pass: `pages`, or more after a pass a reader of an old snapshot stopped.
    private let nextPass: Atomic<Int32>
    /// The log's length in pages that starts a pass.
    let pages: Int32

    init(path: String, pages: Int32) throws(DatabaseError) {
        handle = try Database.open(path, creating: false)
        self.pages = pages
        nextPass = Atomic(pages)
        // The restarting pass waits for the writer's transaction to end, and for readers of an old snapshot (another
        // process's) only briefly: the writer waits while it does.
        Database.waitWhileBusy(handle, milliseconds: 25)
    }

    deinit { sqlite3_close_v2(handle) }

    /// The log's length in pages after the writer's last commit.
    var loggedFrames: Int32 { frames.load(ordering: .relaxed) }

    /// The writer committed (SQLite's WAL hook, on the writer's thread); the log holds `frames` pages. Returns true
    /// when the writer must copy back what it can itself: the passes do not keep up (another process reads an old
    /// snapshot) and the log reached four times its length.
    func committed(frames: Int32) -> Bool {
        self.frames.store(frames, ordering: .relaxed)
        if frames < pages {
            nextPass.store(pages, ordering: .relaxed)
            return false
        }
        if frames >= nextPass.load(ordering: .relaxed), !running.exchange(true, ordering: .acquiringAndReleasing) {
            queue.async { [self] in
                // Stopped short: no new pass before the log grew by a tenth (each would meet the same reader).
                nextPass.store(copyBack().map { $0 + pages / 10 } ?? pages, ordering: .relaxed)
                running.store(false, ordering: .releasing)
            }
        }
        return frames >= 4 * pages
    }

    /// Returns once no pass is running (tests).
    func waitUntilIdle() { queue.sync {} }

    /// Passive passes copy the log back while the writer goes on appending to it. The writer starts the log over
    /// only at a transaction that finds it all copied, which a busy writer never does: so once little is left, a
    /// restarting pass holds the writer off for the rest and a sync, and the next transaction starts the log over.
    /// Returns nil once the log starts over at the writer's next transaction, else the log's length it stopped at.
    private func copyBack() -> Int32? {
        // A connection knows the database is in WAL mode only once it has read it: until then a checkpoint does
        // nothing (and reports -1 pages).
        sqlite3_exec(handle, "SELECT 1 FROM sqlite_schema LIMIT 1", nil, nil, nil)
        var logged: Int32 = 0, copied: Int32 = 0, copiedBefore: Int32 = -1
        for _ in 0..<4 {
            guard sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_PASSIVE, &logged, &copied) == SQLITE_OK else { return logged }
            if logged - copied <= pages / 10 {
                return sqlite3_wal_checkpoint_v2(handle, nil, SQLITE_CHECKPOINT_RESTART, &logged, &copied) == SQLITE_OK ? nil : logged
            }
            // A reader of an old snapshot holds the rest.
            if copied == copiedBefore { return logged }
            copiedBefore = copied
        }
        return logged
    }
}
