import Foundation
import Testing
import TestSupport
@testable import PartyStore

/// How the SQLite store writes its log. A commit's pages go to the file in one write (`WALBuffer.c`), and a
/// checkpointer of its own copies them back (`Checkpointer`).
@Suite("Write-ahead log")
struct WriteAheadLogTests {
    /// A fresh SQLite file in a folder of its own, removed after `body`.
    func withDatabaseFile(_ body: (String) throws -> Void) throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-wal-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        try body(folder.appendingPathComponent("test.sqlite").path)
    }

    /// Rows of 3,000 random bytes: one page each.
    func insertPages(_ count: Int, into database: Database) throws {
        try database.transaction {
            for _ in 0..<count { try database.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
        }
    }

    func pageCount(_ database: Database) throws -> Int64 {
        try database.run("SELECT COUNT(*) AS n FROM pages").first?.integer("n") ?? -1
    }

    /// The database as a kill -9 leaves it: its files copied while `path`'s connections stay open, and opened
    /// elsewhere (SQLite recovers the copied log: a commit counts only if its frames are whole).
    func afterKill(_ path: String) throws -> Database {
        let copy = URL(fileURLWithPath: path).deletingLastPathComponent().appendingPathComponent("killed.sqlite").path
        for suffix in ["", "-wal"] {
            try? FileManager.default.removeItem(atPath: copy + suffix)
            try FileManager.default.copyItem(atPath: path + suffix, toPath: copy + suffix)
        }
        try? FileManager.default.removeItem(atPath: copy + "-shm")
        return try Database(path: copy)
    }

    /// The log writes this thread makes during `body`.
    func logWrites(_ body: () throws -> Void) rethrows -> UInt {
        let before = Database.logWritesOnThisThread
        try body()
        return Database.logWritesOnThisThread - before
    }

    /// SQLite keeps no memory statistics (a global mutex on every allocation of both connections): configured before
    /// the process's first connection, so nothing is counted however much the connections allocate.
    @Test func sqliteCountsNoMemory() throws {
        try withDatabaseFile { path in
            let database = try Database(path: path)
            try database.run("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB)")
            try insertPages(50, into: database)
            #expect(try pageCount(database) == 50)
            #expect(Database.countedMemory == 0)
        }
    }

    @Test func aCommitWritesItsPagesToTheLogInOneCallBeforeItReturns() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            let writes = try logWrites { try insertPages(20, into: writer) }
            #expect(writes == 1, "20 pages and their headers, 41 writes without the buffer: \(writes)")
            // Another connection reads the log from the file: what the commit wrote is there when it returned.
            let reader = try Database(path: path)
            #expect(try pageCount(reader) == 20)
        }
    }

    @Test func aTransactionLargerThanTheBufferCommitsWhole() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            // About 1.2 MB of log: the buffer (120 KiB) fills and goes out many times; a single write of 128 KiB or
            // more would come back short from SQLite's unix VFS and fail the commit with SQLITE_FULL.
            let writes = try logWrites { try insertPages(300, into: writer) }
            #expect(writes >= 10 && writes <= 20, "1.2 MB in writes of at most 120 KiB: \(writes)")
            let reader = try Database(path: path)
            #expect(try pageCount(reader) == 300)
            #expect(try reader.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
        }
    }

    /// A commit whose last frame's header fills the buffer exactly (30 pages) must still be in the file when COMMIT
    /// returns: the flush that makes room has to know the page to come ends a transaction.
    @Test func everyCommitFrom1To130PagesIsInTheFileWhenItReturns() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            let reader = try Database(path: path)
            var total: Int64 = 0
            for pages in 1...130 {
                try insertPages(pages, into: writer)
                total += Int64(pages)
                let read = try pageCount(reader)
                #expect(read == total, "after a commit of \(pages) pages")
                if read != total { break }
            }
            #expect(try pageCount(afterKill(path)) == total)
        }
    }

    /// A power cut keeps only what was synced: `wal-power-cut` (Tests/WALPowerCut/main.c) writes through the WAL buffer
    /// with the server's settings, copies each file aside at each of its syncs, and at a random commit opens the copies,
    /// 40 times. Each time the database is whole, holds whole transactions in order, and every transaction acknowledged
    /// before the log's last sync (synchronous=NORMAL: a commit is durable from the next checkpoint on).
    @Test func aPowerCutAtRandomCommitsLosesNothingSyncedAndLeavesTheDatabaseWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-power-cut-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = try #require(builtExecutable("wal-power-cut"), "the build makes wal-power-cut (Package.swift)")
        let result = try runToExit(program, [folder, "40", "5443"], timeout: 120)
        #expect(result.status == 0, "\(result.output.suffix(3_000))")
        let cuts = result.output.split(separator: "\n").filter { $0.hasPrefix("run ") }
        #expect(cuts.count == 40, "\(result.output.suffix(3_000))")
        // Most cuts come after at least one checkpoint, so the check of what was synced is not empty.
        let synced = cuts.filter { !$0.contains(", 0 before the log's last sync") && !$0.contains(", -1 before") }
        #expect(synced.count >= 30, "\(cuts.joined(separator: "\n"))")
    }

    /// A transaction larger than the page cache spills pages to the log before its commit, and rewrites them there
    /// when they change again: the frames' headers in place, its commit frame's last. Those writes go straight to
    /// the file (the server turns spills off; this is the buffer on its own).
    @Test func aTransactionThatSpillsAndRewritesItsPagesSurvivesAKill() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try writer.execute("PRAGMA cache_spill=ON")
            try writer.execute("PRAGMA cache_size=20")
            try writer.transaction {
                for _ in 0..<100 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                try writer.run("UPDATE pages SET body = zeroblob(3000) WHERE id <= 10")
            }
            let killed = try afterKill(path)
            #expect(try pageCount(killed) == 100)
            #expect(try killed.run("SELECT COUNT(*) AS n FROM pages WHERE body = zeroblob(3000)").first?.integer("n") == 10)
            #expect(try killed.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
        }
    }

    /// The server's writer keeps a transaction's pages in memory until its commit, however many: the WAL buffer relies
    /// on it (it must never hold frames of a transaction that rolls back), and so does the next test.
    @Test func aTransactionLargerThanTheCacheWritesNothingToTheLogBeforeItsCommit() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try writer.execute("PRAGMA cache_size=20")
            #expect(try writer.run("PRAGMA cache_spill").first?.integer("cache_spill") == 0)
            let writes = logWrites {
                try? writer.transaction {
                    for _ in 0..<200 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                    throw DatabaseError(code: 0, message: "rolled back")
                }
            }
            #expect(writes == 0, "nothing of a rolled-back transaction reached the log")
        }
    }

    /// SQLite 3.40.1 (Debian 12): once a transaction spilled pages to the log, a page rewritten in a savepoint that
    /// rolls back leaves the next commit's frames without checksums; recovery after a kill drops that commit and
    /// every later one (with and without the WAL buffer). A group commit rolls a savepoint back
    /// whenever one write of a batch fails; the writer's spills are off, and every commit survives.
    @Test func commitsAfterABigSavepointThatRolledBackSurviveAKill() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try insertPages(200, into: writer)
            try writer.checkpoint()
            try writer.execute("PRAGMA cache_size=20")
            try writer.transaction {
                try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))")
                try? writer.transaction {
                    for _ in 0..<80 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                    try writer.run("UPDATE pages SET body = randomblob(3000) WHERE id > 200 AND id % 7 = 0")
                    for _ in 0..<80 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                    throw DatabaseError(code: 0, message: "one write of the batch failed")
                }
                try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))")
            }
            for _ in 0..<3 { try insertPages(1, into: writer) }
            #expect(try pageCount(writer) == 205)
            let killed = try afterKill(path)
            #expect(try pageCount(killed) == 205)
            #expect(try killed.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
        }
    }

    /// Shutdown folds the log into the database file: right after a commit started a checkpointer's pass too.
    @Test func theShutdownCheckpointEmptiesTheLogWhileAPassRuns() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path, checkpointPages: 64)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            while writer.loggedFrames < 64 { try insertPages(8, into: writer) }
            try writer.checkpoint()
            let log = try FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int
            #expect(log == 0)
        }
    }

    @Test func theCheckpointerCopiesTheLogBackAndTheNextWriteStartsItOver() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path, checkpointPages: 64)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            while writer.loggedFrames < 64 { try insertPages(8, into: writer) }
            let logged = writer.loggedFrames
            writer.waitForCheckpoint()
            let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int ?? 0
            #expect(size >= 56 * 4096, "the pages are in the database file: \(size) bytes")
            try insertPages(1, into: writer)
            #expect(writer.loggedFrames < 8, "the log started over: \(writer.loggedFrames) pages after \(logged)")
            let reader = try Database(path: path)
            let written = try pageCount(writer)
            #expect(try pageCount(reader) == written)
            #expect(try reader.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
        }
    }
}
