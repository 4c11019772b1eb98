import Foundation
import PartyCore

/// R36: guests' nicknames, kept with the guest (the device the party admitted).
extension PartyStore {
    /// The guest whose nickname is `nickname` in either fold, if any.
    public func nicknameHolder(_ nickname: Nickname, partyId: String) throws -> String? {
        try run("""
            SELECT device_id FROM guests WHERE party_id = ?1 AND (nickname_fold = ?2 OR nickname_fold_written = ?3) LIMIT 1
            """, [.text(partyId), .text(nickname.caselessKey), .text(nickname.writtenKey)]).first?.text("device_id")
    }

    /// Sets (nil: clears) the admitted guest's nickname.
    public func setNickname(_ nickname: Nickname?, deviceId: String, partyId: String) throws {
        try run("""
            UPDATE guests SET nickname = ?, nickname_fold = ?, nickname_fold_written = ? WHERE party_id = ? AND device_id = ?
            """, [.optional(nickname?.text), .optional(nickname?.caselessKey), .optional(nickname?.writtenKey), .text(partyId),
                  .text(deviceId)])
    }

    /// Every nickname of the party, by device.
    public func nicknames(partyId: String) throws -> [String: String] {
        var names: [String: String] = [:]
        for row in try run("SELECT device_id, nickname FROM guests WHERE party_id = ? AND nickname IS NOT NULL", [.text(partyId)]) {
            if let device = row.text("device_id"), let name = row.text("nickname") { names[device] = name }
        }
        return names
    }
}
