import Foundation
import Testing
@testable import PartyStore

/// Issue 28: how the SQLite store writes its log. A commit's pages go to the file in one write (`WALBuffer.c`), and a
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

    @Test func aCommitWritesItsPagesToTheLogInOneCallBeforeItReturns() throws {
        try withDatabaseFile { path in
            let writer = try Database(path: path)
            try writer.execute("CREATE TABLE pages (id INTEGER PRIMARY KEY, body BLOB NOT NULL)")
            let before = Database.logWritesOnThisThread
            try insertPages(20, into: writer)
            let writes = Database.logWritesOnThisThread - before
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
            let before = Database.logWritesOnThisThread
            try insertPages(300, into: writer)
            let writes = Database.logWritesOnThisThread - before
            #expect(writes >= 10 && writes <= 20, "1.2 MB in writes of at most 120 KiB: \(writes)")
            let reader = try Database(path: path)
            #expect(try pageCount(reader) == 300)
            #expect(try reader.run("PRAGMA integrity_check").first?.text("integrity_check") == "ok")
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
