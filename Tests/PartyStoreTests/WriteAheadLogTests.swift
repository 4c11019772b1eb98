import Foundation
import Testing
import TestSupport
@testable import PartyStore

/// How the SQLite store writes its log: a commit returns once its pages are synced to the log, and a checkpointer of
/// its own copies them back (`Checkpointer`).
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

    /// The settings `power-cut` plays a power cut under: the log, each commit synced to it, no spills before a commit.
    @Test func theStoreSyncsEachCommitToTheLog() throws {
        try withDatabaseFile { path in
            let database = try Database(path: path)
            #expect(try database.run("PRAGMA journal_mode").first?.text("journal_mode") == "wal")
            #expect(try database.run("PRAGMA synchronous").first?.integer("synchronous") == 2, "FULL")
            #expect(try database.run("PRAGMA cache_spill").first?.integer("cache_spill") == 0)
        }
    }

    /// A power cut keeps only what was synced: `power-cut` (Tests/PowerCut/main.c) writes with the server's settings,
    /// copies each file aside at each of its syncs, and at a random commit opens the copies, 40 times. Each time the
    /// database is whole, holds whole transactions in order, and every acknowledged one (synchronous=FULL: a commit
    /// returns once the log is synced).
    @Test func aPowerCutAtRandomCommitsLosesNothingAcknowledgedAndLeavesTheDatabaseWhole() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-power-cut-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(atPath: folder) }
        let program = try #require(builtExecutable("power-cut"), "the build makes power-cut (Package.swift)")
        let result = try runToExit(program, [folder, "40", "5443"], timeout: 120)
        #expect(result.status == 0, "\(result.output.suffix(3_000))")
        let cuts = result.output.split(separator: "\n").filter { $0.hasPrefix("run ") }
        #expect(cuts.count == 40, "\(result.output.suffix(3_000))")
        #expect(result.output.contains("40 cuts: every one whole, with every acknowledged transaction"), "\(result.output.suffix(3_000))")
    }

    /// The server's writer keeps a transaction's pages in memory until its commit, however many: the next test relies
    /// on it.
    @Test func aTransactionLargerThanTheCacheWritesNothingToTheLogBeforeItsCommit() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try writer.execute("PRAGMA cache_size=20")
            #expect(try writer.run("PRAGMA cache_spill").first?.integer("cache_spill") == 0)
            let logged = { (try? FileManager.default.attributesOfItem(atPath: path + "-wal")[.size] as? Int) ?? -1 }
            let before = logged()
            try? writer.transaction {
                for _ in 0..<200 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                #expect(logged() == before, "nothing of the open transaction reached the log")
                throw DatabaseError(code: 0, message: "rolled back")
            }
            #expect(logged() == before, "nothing of a rolled-back transaction reached the log")
        }
    }

    /// SQLite 3.40.1 (Debian 12): once a transaction spilled pages to the log, a page rewritten in a savepoint that
    /// rolls back leaves the next commit's frames without checksums; recovery after a kill drops that commit and
    /// every later one. A group commit rolls a savepoint back
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
