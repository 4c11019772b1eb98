import Foundation
import PartyStore

/// Which of the instances sharing one database runs the party upkeep (R6's auto-end, the purge, the log
/// pruning, the start-up repair): the one whose own session holds a session-level advisory lock. When that
/// instance dies its session ends, PostgreSQL frees the lock, and the next instance to ask takes it. Owns one libpq
/// connection; not thread-safe: the application's upkeep queue is its only user.
public final class UpkeepLock {
    /// `pg_try_advisory_lock(bigint)`'s key: "mvupkeep" in ASCII.
    static let key: Int64 = 0x6d76_7570_6b65_6570
    private let connection: PostgreSQLConnection
    private var heldInSession: Int?

    public init(url: String) throws {
        connection = try PostgreSQLConnection(url: url, applicationName: "musicvoting-upkeep-\(getpid())")
    }

    /// Whether this instance holds the lock now: asks for it when it does not, and checks that the session that
    /// took it is still open when it does (a lost session lost the lock). False while the database is out of reach.
    public func hold() -> Bool {
        do {
            if let session = heldInSession, session == connection.sessions, connection.isConnected {
                try connection.run("SELECT 1", [])
                if session == connection.sessions { return true }
            }
            heldInSession = nil
            if !connection.isConnected, !connection.reset() { return false }
            let locked = try connection.run("SELECT pg_try_advisory_lock(?) AS locked", [.integer(Self.key)]).first?.bool("locked") ?? false
            if locked { heldInSession = connection.sessions }
            return locked
        } catch {
            heldInSession = nil
            return false
        }
    }
}
