import Foundation
import PartyCore
import PartyStore
import Synchronization

/// Pending Spotify OAuth states and the key that signs them, in the database several instances share
/// (migration 10), so a callback may land on another instance than the login began on. Its own connection, whose
/// serial owner is the `Mutex`. It keeps the Spotify provider's `LoginNonces`.
public final class ClusterLogins: Sendable {
    public struct Pending: Sendable {
        public let partyId: String
        public let source: String
        public let installationId: String?
        public let verifier: String
        public let expiresAt: Date

        public init(partyId: String, source: String, installationId: String?, verifier: String, expiresAt: Date) {
            self.partyId = partyId
            self.source = source
            self.installationId = installationId
            self.verifier = verifier
            self.expiresAt = expiresAt
        }
    }

    private let connection: Mutex<PostgreSQLConnection>

    public init(url: String) throws {
        connection = Mutex(try PostgreSQLConnection(url: url, applicationName: "musicvoting-logins-\(getpid())"))
    }

    /// The key kept under `name`, or `proposal` when none was (the first instance's proposal wins).
    public func key(named name: String, proposing proposal: String) throws -> String {
        try run("INSERT INTO cluster_keys (name, value) VALUES (?, ?) ON CONFLICT (name) DO NOTHING", [.text(name), .text(proposal)])
        guard let value = try run("SELECT value FROM cluster_keys WHERE name = ?", [.text(name)]).first?.text("value") else {
            throw DatabaseError(code: 0, message: "the key \(name) was not kept", sqlState: "")
        }
        return value
    }

    /// Keeps a state; drops expired ones, the party's oldest past `perParty` and the oldest past `capacity`.
    public func keepState(nonce: String, _ pending: Pending, pool: String, perParty: Int, capacity: Int, at now: Date) throws {
        try connection.withLock { connection in
            try connection.runReconnecting("SELECT 1", [])
            return try connection.inTransaction {
                try connection.run("DELETE FROM oauth_states WHERE expires_at <= ?", [.real(now.timeIntervalSince1970)])
                try connection.run("""
                    DELETE FROM oauth_states WHERE nonce IN
                        (SELECT nonce FROM oauth_states WHERE COALESCE(pool, party_id) = ? ORDER BY expires_at DESC OFFSET ?)
                    """, [.text(pool), .integer(Int64(perParty - 1))])
                try connection.run("""
                    DELETE FROM oauth_states WHERE nonce IN (SELECT nonce FROM oauth_states ORDER BY expires_at DESC OFFSET ?)
                    """, [.integer(Int64(capacity - 1))])
                try connection.run("""
                    INSERT INTO oauth_states (nonce, party_id, source, installation_id, verifier, expires_at, pool) VALUES (?, ?, ?, ?, ?, ?, ?)
                    """, [.text(nonce), .text(pending.partyId), .text(pending.source), pending.installationId.map { .text($0) } ?? .null,
                          .text(pending.verifier), .real(pending.expiresAt.timeIntervalSince1970), .text(pool)])
            }
        }
    }

    /// The state kept under `nonce`, removed in the same statement: two callbacks with one state get it once.
    public func takeState(nonce: String) throws -> Pending? {
        try run("""
            DELETE FROM oauth_states WHERE nonce = ? RETURNING party_id, source, installation_id, verifier, expires_at
            """, [.text(nonce)]).first.flatMap { row in
            guard let party = row.text("party_id"), let source = row.text("source"), let verifier = row.text("verifier"),
                  let expiresAt = row.date("expires_at") else { return nil }
            return Pending(partyId: party, source: source, installationId: row.text("installation_id"), verifier: verifier, expiresAt: expiresAt)
        }
    }

    @discardableResult
    func run(_ sql: String, _ values: [SQLValue]) throws(DatabaseError) -> [Row] {
        try connection.withLock { connection throws(DatabaseError) in try connection.runReconnecting(sql, values) }
    }
}
