import Foundation
import PartyCore

/// R34: the host's co-host links. Every check reads the table (nothing caches a link), so a revoke on one instance
/// holds on every instance from its commit on.
extension PartyStore {
    public func insertCohost(_ cohost: Cohost, partyId: String) throws {
        try run("INSERT INTO cohosts (party_id, id, token, created_at) VALUES (?, ?, ?, ?)",
                [.text(partyId), .text(cohost.id), .text(cohost.token), .date(cohost.createdAt)])
    }

    /// Every link of the party, revoked ones too.
    public func cohosts(partyId: String) throws -> [Cohost] {
        try run("SELECT id, token, created_at, joined_at, revoked_at FROM cohosts WHERE party_id = ?", [.text(partyId)]).map(Self.cohost)
    }

    /// The party's link with this token (live or revoked).
    public func cohost(token: String, partyId: String) throws -> Cohost? {
        try run("SELECT id, token, created_at, joined_at, revoked_at FROM cohosts WHERE party_id = ? AND token = ?",
                [.text(partyId), .text(token)]).first.map(Self.cohost)
    }

    /// Records the link's first use; false when it was used before (on this instance or another).
    public func markCohostJoined(id: String, partyId: String, at now: Date) throws -> Bool {
        try run("UPDATE cohosts SET joined_at = ? WHERE party_id = ? AND id = ? AND joined_at IS NULL", [.date(now), .text(partyId), .text(id)])
        return database.changes > 0
    }

    /// Revokes the live links among `ids`; returns those it revoked.
    public func revokeCohosts(ids: [String], partyId: String, at now: Date) throws -> [String] {
        var revoked: [String] = []
        for id in ids {
            try run("UPDATE cohosts SET revoked_at = ? WHERE party_id = ? AND id = ? AND revoked_at IS NULL", [.date(now), .text(partyId), .text(id)])
            if database.changes > 0 { revoked.append(id) }
        }
        return revoked
    }

    /// Keeps the party's `keep` most recently revoked links, drops older revoked ones.
    public func pruneRevokedCohosts(partyId: String, keep: Int) throws {
        try run("""
            DELETE FROM cohosts WHERE party_id = ?1 AND revoked_at IS NOT NULL AND id NOT IN
                (SELECT id FROM cohosts WHERE party_id = ?1 AND revoked_at IS NOT NULL ORDER BY revoked_at DESC LIMIT ?2)
            """, [.text(partyId), .integer(Int64(keep))])
    }

    private static func cohost(_ row: Row) -> Cohost {
        Cohost(id: row.text("id") ?? "", token: row.text("token") ?? "", createdAt: row.date("created_at") ?? Date(timeIntervalSince1970: 0),
               joinedAt: row.date("joined_at"), revokedAt: row.date("revoked_at"))
    }
}
