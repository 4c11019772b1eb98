import Foundation
import Testing
@testable import PartyStore

/// How the SQLite store writes its log: through SQLite's default VFS, with a checkpointer of its own that copies it
/// back (`Checkpointer`); every commit survives a kill.
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

    @Test func aLargeTransactionCommitsWhole() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try insertPages(300, into: writer)
            let reader = try Database(path: path)
            #expect(try pageCount(reader) == 300)
            #expect(try reader.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
        }
    }

    /// Every commit, whatever its size, is in the file when it returns: another connection reads it, and so does
    /// the database a kill leaves.
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

    /// A transaction larger than the page cache spills pages to the log before its commit, and rewrites them there
    /// when they change again: the frames' headers in place, its commit frame's last (the server turns spills off;
    /// this is SQLite's log on its own).
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

    /// The server's writer keeps a transaction's pages in memory until its commit, however many: the next test
    /// relies on it. A rolled-back transaction leaves the log as it was.
    @Test func aTransactionLargerThanTheCacheWritesNothingToTheLogBeforeItsCommit() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            try writer.execute("PRAGMA cache_size=20")
            #expect(try writer.run("PRAGMA cache_spill").first?.integer("cache_spill") == 0)
            let logSize = { ((try? FileManager.default.attributesOfItem(atPath: path + "-wal"))?[.size] as? Int) ?? 0 }
            let before = logSize()
            try? writer.transaction {
                for _ in 0..<200 { try writer.run("INSERT INTO pages (body) VALUES (randomblob(3000))") }
                #expect(logSize() == before, "nothing of the open transaction reached the log")
                throw DatabaseError(code: 0, message: "rolled back")
            }
            #expect(logSize() == before, "nothing of a rolled-back transaction reached the log")
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
