import Foundation
import PartyEngine
import PartyStore

/// An instance's own PostgreSQL session for what the instances of one database tell each other: it LISTENs on
/// `PartyStore.instancesChannel` for the doorbells other instances ring after their commits, rings this instance's own
/// (coalesced by the caller), and reads the event log rows a doorbell announced. Owns one libpq connection; not thread-safe: one
/// thread (the engine's `Doorbell`) is its only user.
public final class ClusterChannel: DoorbellSession {
    private let connection: PostgreSQLConnection
    /// The log read through this session (no migrations: the store's connection ran them).
    private let log: PartyStore
    private var listeningSession: Int?

    public init(url: String) throws {
        connection = try PostgreSQLConnection(url: url, applicationName: "musicvoting-doorbell-\(getpid())")
        log = PartyStore(session: connection)
    }

    /// The socket to poll for notifications; only meaningful while `isListening`.
    public var socket: Int32 { connection.socket }

    /// Whether the session that sent LISTEN is still the open one.
    public var isListening: Bool { connection.isConnected && listeningSession == connection.sessions }

    /// Opens the session again if it was lost and LISTENs in it: nil while the server is out of reach, true when it
    /// began listening now (notifications sent before are gone: the caller reads what it serves again), false when
    /// it already listened.
    public func listen() throws -> Bool? {
        if isListening { return false }
        if !connection.isConnected, !connection.reset() { return nil }
        try connection.execute("LISTEN \(PartyStore.instancesChannel)")
        listeningSession = connection.sessions
        return true
    }

    /// The payloads of the notifications that arrived from other sessions (this session's own are left out).
    public func receive() throws -> [String] {
        let own = connection.backendPID
        return try connection.receiveNotifications().filter { $0.channel == PartyStore.instancesChannel && $0.senderPID != own }.map(\.payload)
    }

    /// Rings: one statement (its own transaction) of one `pg_notify` per payload. PostgreSQL delivers them to every
    /// listening session, on commit, in order.
    public func notify(_ payloads: [String]) throws {
        guard !payloads.isEmpty else { return }
        let calls = payloads.indices.map { "pg_notify(?1, ?\($0 + 2))" }.joined(separator: ", ")
        try connection.run("SELECT \(calls)", [.text(PartyStore.instancesChannel)] + payloads.map { .text($0) })
    }

    /// The logged events after `sequence`, oldest first, at most `limit`.
    public func events(partyId: String, after sequence: Int64, limit: Int) throws -> [LoggedEvent] {
        try log.events(partyId: partyId, after: sequence, limit: limit)
    }

    public func notificationQueueUsage() throws -> Double {
        try connection.run("SELECT pg_notification_queue_usage() AS usage", []).first?.real("usage") ?? 0
    }

    /// The newest sequence number of each of `partyIds` that exists.
    public func lastEventSequences(partyIds: [String]) throws -> [String: Int64] {
        var result: [String: Int64] = [:]
        for batch in stride(from: 0, to: partyIds.count, by: 500).map({ Array(partyIds[$0..<min($0 + 500, partyIds.count)]) }) {
            let marks = Array(repeating: "?", count: batch.count).joined(separator: ", ")
            for row in try connection.run("SELECT id, last_event_seq FROM parties WHERE id IN (\(marks))", batch.map { .text($0) }) {
                if let id = row.text("id") { result[id] = row.integer("last_event_seq") ?? 0 }
            }
        }
        return result
    }
}
