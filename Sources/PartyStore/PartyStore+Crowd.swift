import Foundation
import PartyCore

/// R17a's vetoes and active guests, R30's bans.
extension PartyStore {
    /// R17a: one veto per device per entry; a second call takes it back. Returns whether it is vetoed now.
    public func toggleVeto(entryId: Int64, deviceId: String) throws -> Bool {
        try run("DELETE FROM vetoes WHERE entry_id = ? AND device_id = ?", [.integer(entryId), .text(deviceId)])
        if database.changes > 0 { return false }
        try run("INSERT INTO vetoes (entry_id, device_id) VALUES (?, ?)", [.integer(entryId), .text(deviceId)])
        return true
    }

    /// R17a: the ids of the party's entries that `deviceId` vetoed.
    public func entriesVetoed(by deviceId: String, partyId: String) throws -> Set<Int64> {
        Set(try run("""
            SELECT e.id FROM queue_entries e JOIN vetoes x ON x.entry_id = e.id AND x.device_id = ? WHERE e.party_id = ?
            """, [.text(deviceId), .text(partyId)]).compactMap { $0.integer("id") })
    }

    /// R17a: the device joined, added, liked or vetoed now.
    public func recordActivity(deviceId: String, partyId: String, at now: Date) throws {
        try run("""
            INSERT INTO guest_activity (party_id, device_id, seen_at) VALUES (?, ?, ?)
            ON CONFLICT(party_id, device_id) DO UPDATE SET seen_at = excluded.seen_at
            """, [.text(partyId), .text(deviceId), .date(now)])
    }

    /// R17a: devices active in the party since `since`.
    public func activeGuestCount(partyId: String, since: Date) throws -> Int {
        Int(try run("SELECT COUNT(*) AS active FROM guest_activity WHERE party_id = ? AND seen_at >= ?",
                    [.text(partyId), .date(since)]).first?.integer("active") ?? 0)
    }

    public func activeGuestCount(since: Date) throws -> Int {
        Int(try run("SELECT COUNT(*) AS active FROM guest_activity WHERE seen_at >= ?", [.date(since)]).first?.integer("active") ?? 0)
    }

    /// R30: bans the adder of `entryId`, and new identities from `address` (the adder's, when known); the entry is
    /// remembered so a second ban of it is found (harmless).
    public func ban(adder: String, entryId: Int64, partyId: String, address: String?) throws {
        try run("INSERT INTO bans (party_id, entry_id, adder, address) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(partyId), .integer(entryId), .text(adder), .optional(address)])
    }

    /// R30: whether a banned guest was admitted from `address`.
    public func isBanned(address: String, partyId: String) throws -> Bool {
        !(try run("SELECT 1 AS banned FROM bans WHERE party_id = ? AND address = ? LIMIT 1", [.text(partyId), .text(address)]).isEmpty)
    }

    public func isBanned(adder: String, partyId: String) throws -> Bool {
        !(try run("SELECT 1 AS banned FROM bans WHERE party_id = ? AND adder = ? LIMIT 1", [.text(partyId), .text(adder)]).isEmpty)
    }

    public func bannedAdders(partyId: String) throws -> Set<String> {
        Set(try run("SELECT adder FROM bans WHERE party_id = ?", [.text(partyId)]).compactMap { $0.text("adder") })
    }

    public func isBanned(entryId: Int64, partyId: String) throws -> Bool {
        !(try run("SELECT 1 AS banned FROM bans WHERE party_id = ? AND entry_id = ?", [.text(partyId), .integer(entryId)]).isEmpty)
    }

    /// R30: lifts every ban of the party; returns how many entries' bans were lifted.
    @discardableResult
    public func liftBans(partyId: String) throws -> Int {
        try run("DELETE FROM bans WHERE party_id = ?", [.text(partyId)])
        return database.changes
    }
}
