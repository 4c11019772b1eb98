import Foundation
import PartyCore

/// Who a party's guests are: the device ids it admitted (`PartyState.admitGuest`), each with the address it came from.
extension PartyStore {
    public func isGuest(deviceId: String, partyId: String) throws -> Bool {
        !(try run("SELECT 1 AS guest FROM guests WHERE party_id = ? AND device_id = ?", [.text(partyId), .text(deviceId)]).isEmpty)
    }

    /// Whether the device was new to the party (false: it was a guest already).
    @discardableResult
    public func admitGuest(deviceId: String, partyId: String, address: String, at now: Date) throws -> Bool {
        try run("INSERT INTO guests (party_id, device_id, address, admitted_at) VALUES (?, ?, ?, ?) ON CONFLICT DO NOTHING",
                [.text(partyId), .text(deviceId), .text(address), .date(now)])
        return database.changes > 0
    }

    /// The address the guest was admitted from (nil: no such guest, or one of the party's guests from before).
    public func guestAddress(deviceId: String, partyId: String) throws -> String? {
        try run("SELECT address FROM guests WHERE party_id = ? AND device_id = ?", [.text(partyId), .text(deviceId)])
            .first?.text("address").flatMap { $0.isEmpty ? nil : $0 }
    }

    /// R17a: forgets when guests were last seen before `cutoff` (out of every party's window): the count of active
    /// guests reads the window's rows only.
    @discardableResult
    public func pruneActivity(before cutoff: Date) throws -> Int {
        try run("DELETE FROM guest_activity WHERE seen_at < ?", [.date(cutoff)])
        return database.changes
    }
}
