import Foundation
import PartyCore

/// SQLite persistence of PartyCore values (R7, R8). Not thread-safe: the server serializes every call.
public final class PartyStore {
    let database: Database
    private var statements: [String: Statement] = [:]

    public init(path: String) throws {
        database = try Database(path: path)
        try database.migrate(Schema.migrations)
    }

    public var schemaVersion: Int { get throws { try database.schemaVersion } }

    /// Changes whenever anything was written: what was read at one value is still true at the same value.
    /// (This connection is the database's only writer.)
    public var writeVersion: Int64 { database.totalChanges }

    /// Folds the write-ahead log into the database file (on shutdown: the folder then holds one complete file).
    public func checkpoint() throws {
        try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    }

    /// Runs `body` atomically: all of its writes land, or none.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        try database.transaction(body)
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws -> [Row] {
        if let statement = statements[sql] { return try statement.run(values) }
        let statement = try database.prepare(sql)
        statements[sql] = statement
        return try statement.run(values)
    }
}
