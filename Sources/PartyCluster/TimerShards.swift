import Foundation
import PartyStore

/// Which instance runs each party's timers (R20a's stall detection, `device-changed`): parties fall into
/// `count` shards by a hash PostgreSQL computes (`shardOf`), and an instance runs the parties of the shards whose
/// session-level advisory lock its own session holds. Each instance takes free shards up to its fair share of
/// the instances alive on the database (their sessions, by name) and gives back what is over it, so shards spread out. When an
/// instance dies its session ends, its locks free, and the others take them at their next tick (every second).
/// Owns one libpq connection; not thread-safe: the application's upkeep queue is its only user.
public final class TimerShards {
    public static let count = 16
    /// `pg_try_advisory_lock(int, int)`'s first key: "mvtm" in ASCII; the second is the shard.
    static let lockClass: Int32 = 0x6d76_746d
    static let sessionName = "musicvoting-timers-"
    private let connection: PostgreSQLConnection
    private var held: Set<Int> = []
    private var heldInSession: Int?

    public init(url: String) throws {
        connection = try PostgreSQLConnection(url: url, applicationName: Self.sessionName + "\(getpid())")
    }

    /// The SQL for a party id's shard (`hashtext` is PostgreSQL's own, the same on every instance).
    static func shardOf(_ column: String) -> String { "(hashtext(\(column)) & \(count - 1))" }

    /// The shards this instance holds now, after taking free ones up to its share and giving back what is over it.
    /// Empty while the database is out of reach (a lost session lost its locks).
    public func hold() -> Set<Int> {
        do {
            if heldInSession != connection.sessions || !connection.isConnected {
                held = []
                if !connection.isConnected, !connection.reset() { return [] }
                // What this session held before a failed call is unknown: start from nothing.
                try connection.run("SELECT pg_advisory_unlock_all()", [])
                heldInSession = connection.sessions
            }
            // The instances on this database (advisory locks are per database; a server may hold other deployments').
            let alive = try connection.run("""
                SELECT count(*) AS alive FROM pg_stat_activity WHERE application_name LIKE ? AND datname = current_database()
                """, [.text(Self.sessionName + "%")]).first?.integer("alive") ?? 1
            let share = (Self.count + Int(max(1, alive)) - 1) / Int(max(1, alive))
            for shard in held.sorted().reversed() where held.count > share {
                try connection.run("SELECT pg_advisory_unlock(?::int, ?::int)", [.integer(Int64(Self.lockClass)), .integer(Int64(shard))])
                held.remove(shard)
            }
            for shard in 0..<Self.count where held.count < share && !held.contains(shard) {
                let locked = try connection.run("SELECT pg_try_advisory_lock(?::int, ?::int) AS locked",
                                                [.integer(Int64(Self.lockClass)), .integer(Int64(shard))]).first?.bool("locked") ?? false
                if locked { held.insert(shard) }
            }
            if heldInSession != connection.sessions { held = [] }
            return held
        } catch {
            held = []
            heldInSession = nil
            return []
        }
    }
}
