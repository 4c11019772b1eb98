import Foundation
import PartyCore

/// R24a: what keeps a host and the TV in: the clients that proved the host PIN, the host page's token, the host
/// PIN's rotation and the one-time links the server's console hands out. Durable on both databases, so neither a
/// restart nor a database crash locks out who had proved itself.
extension PartyStore {
    /// Whether `client` (an IPv6 /64 or IPv4 address, `AddressPrefix.device`) proved the secret of `scope`.
    public func isProven(client: String, scope: String) throws -> Bool {
        try !run("SELECT 1 AS proven FROM proven_clients WHERE scope = ? AND client = ?", [.text(scope), .text(client)]).isEmpty
    }

    /// Remembers that `client` proved the secret of `scope`; a scope keeps its `keep` newest.
    public func prove(client: String, scope: String, keep: Int, at now: Date) throws {
        try run("""
            INSERT INTO proven_clients (scope, client, proven_at) VALUES (?, ?, ?)
            ON CONFLICT (scope, client) DO UPDATE SET proven_at = excluded.proven_at
            """, [.text(scope), .text(client), .date(now)])
        try run("""
            DELETE FROM proven_clients WHERE scope = ?1 AND client NOT IN
                (SELECT client FROM proven_clients WHERE scope = ?1 ORDER BY proven_at DESC LIMIT ?2)
            """, [.text(scope), .integer(Int64(keep))])
    }

    public func forgetProven(scope: String) throws {
        try run("DELETE FROM proven_clients WHERE scope = ?", [.text(scope)])
    }

    /// The host page's token of a party that has none yet (made before tokens existed).
    public func setHostToken(_ token: String, partyId: String) throws {
        try run("UPDATE parties SET host_token = ? WHERE id = ?", [.text(token), .text(partyId)])
    }

    /// A new host PIN and token; the party's budgets of wrong PINs start over with the new PIN.
    public func rotateHostPin(to hostPin: String, hostToken: String, partyId: String) throws {
        try run("UPDATE parties SET host_pin = ?, host_token = ?, wrong_pin_checks = 0, host_join_misses = 0 WHERE id = ?",
                [.text(hostPin), .text(hostToken), .text(partyId)])
    }

    /// A one-time recovery link's token for the party (the server's console writes it, the running server redeems it).
    public func addHostRecovery(token: String, partyId: String, expiresAt: Date) throws {
        try run("INSERT INTO host_recoveries (token, party_id, expires_at) VALUES (?, ?, ?)",
                [.text(token), .text(partyId), .date(expiresAt)])
    }

    /// Whether `token` is a live recovery token of the party; it is used up either way, expired ones with it.
    public func takeHostRecovery(token: String, partyId: String, at now: Date) throws -> Bool {
        try transaction {
            let found = try run("SELECT expires_at FROM host_recoveries WHERE token = ? AND party_id = ?", [.text(token), .text(partyId)])
            try run("DELETE FROM host_recoveries WHERE token = ? OR expires_at <= ?", [.text(token), .date(now)])
            return found.first?.date("expires_at").map { $0 > now } ?? false
        }
    }
}
