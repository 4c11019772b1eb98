import Foundation
import PartyCore

/// Persistence of PartyCore values (R7, R8) on SQLite (`init(path:)`) or PostgreSQL (`init(postgreSQL:)`): the
/// SQL is written once, the connection runs it in its dialect. Not thread-safe: the server serializes every call.
public final class PartyStore: PartyStoring {
    let database: any SQLConnection
    /// Parties whose row the open transaction locked (`lockParty`).
    private var lockedParties: Set<String> = []

    /// The SQLite file at `path`, created and migrated as needed.
    public convenience init(path: String) throws {
        self.init(connection: try Database(path: path))
        try database.migrate(Schema.migrations)
    }

    /// The PostgreSQL database at `url` (`postgres://user@host:port/name`), migrated as needed.
    public convenience init(postgreSQL url: String) throws {
        let connection = try PostgreSQLConnection(url: url)
        // A migration on a big database may take long: the answer deadline guards requests, not the start.
        connection.answerDeadline = nil
        try connection.migrate(Schema.migrations(.postgreSQL))
        connection.answerDeadline = PostgreSQLConnection.answerDeadline
        self.init(connection: connection)
    }

    /// A second view of a PostgreSQL database another store already migrated, on its own session (the instances'
    /// event channel reads the log through it).
    package convenience init(session: PostgreSQLConnection) {
        self.init(connection: session)
    }

    init(connection: any SQLConnection) {
        database = connection
    }

    public var schemaVersion: Int { get throws { try database.schemaVersion } }

    /// Changes whenever anything was written: what was read at one value is still true at the same value.
    /// SQLite: the connection's total changes (it is the database's only writer). PostgreSQL: a counter in this
    /// process, bumped by every write this store makes: it misses other processes' writes, so there a
    /// cached read is also checked against the party's `version`.
    public var writeVersion: Int64 { database.writeVersion }

    public func partyVersion(id: String) throws -> Int64? {
        try run("SELECT version FROM parties WHERE id = ?", [.text(id)]).first.map { $0.integer("version") ?? 0 }
    }

    /// Takes the party's row lock, once per transaction: a row this transaction locked stays locked until it ends
    /// (a like locked it up to four times per write).
    public func lockParty(id: String) throws {
        guard let lock = database.dialect.lockParty else { return }
        let inTransaction = database.isInTransaction
        if inTransaction, lockedParties.contains(id) { return }
        try run(lock, [.text(id)])
        if inTransaction { lockedParties.insert(id) }
    }

    func noteLocked(partyId: String) { lockedParties.insert(partyId) }

    /// Whether a statement of the open transaction failed, so that it can only roll back (PostgreSQL).
    public var transactionFailed: Bool {
        do { try database.checkCommittable(); return false } catch { return true }
    }

    /// SQLite: folds the write-ahead log into the database file (on shutdown: the folder then holds one complete
    /// file). PostgreSQL manages its own log: nothing to do.
    public func checkpoint() throws {
        try database.checkpoint()
    }

    /// Runs `body` atomically: all of its writes land, or none.
    public func transaction<T>(_ body: () throws -> T) throws -> T {
        let held = lockedParties
        do {
            let result = try database.transaction(body)
            if !database.isInTransaction { lockedParties.removeAll() }
            return result
        } catch {
            // A savepoint rolled back releases the row locks taken inside it; the transaction's end releases every one.
            lockedParties = database.isInTransaction ? held : []
            throw error
        }
    }

    /// `body` as one unit: inside the caller's open transaction, which takes it back as a whole when `body` throws
    /// past it (a savepoint of its own per like in a group commit, where each write has one already), else
    /// in a transaction of its own. For statements whose error no caller catches inside its transaction.
    func atomically<T>(_ body: () throws -> T) throws -> T {
        database.isInTransaction ? try body() : try transaction(body)
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue] = []) throws -> [Row] {
        try database.run(sql, values)
    }
}
