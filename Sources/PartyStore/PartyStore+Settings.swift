import Foundation
import PartyCore

extension PartyStore {
    public func blacklist(partyId: String) throws -> Blacklist {
        Blacklist(words: try run("SELECT word FROM blacklist WHERE party_id = ? ORDER BY word", [.text(partyId)])
            .compactMap { $0.text("word") })
    }

    public func addBlacklistWord(_ word: String, partyId: String) throws {
        try run("INSERT INTO blacklist (party_id, word) VALUES (?, ?) ON CONFLICT DO NOTHING", [.text(partyId), .text(word)])
    }

    public func removeBlacklistWord(_ word: String, partyId: String) throws {
        try run("DELETE FROM blacklist WHERE party_id = ? AND word = ?", [.text(partyId), .text(word)])
    }

    /// R21: the token the registered monitor proves itself with.
    public func monitorToken(partyId: String) throws -> String? {
        try run("SELECT monitor_token FROM parties WHERE id = ?", [.text(partyId)]).first?.text("monitor_token")
    }

    public func setMonitor(token: String, partyId: String) throws {
        try run("UPDATE parties SET monitor_token = ? WHERE id = ?", [.text(token), .text(partyId)])
    }

    public func save(tokens: ProviderTokens, partyId: String) throws {
        try run("""
            INSERT INTO provider_tokens (party_id, provider, access_token, refresh_token, expires_at) VALUES (?, ?, ?, ?, ?)
            ON CONFLICT(party_id) DO UPDATE SET provider = excluded.provider, access_token = excluded.access_token,
                refresh_token = excluded.refresh_token, expires_at = excluded.expires_at
            """, [.text(partyId), .text(tokens.provider), .optional(tokens.accessToken), .optional(tokens.refreshToken),
                  .optional(tokens.expiresAt)])
    }

    public func tokens(partyId: String) throws -> ProviderTokens? {
        try run("SELECT provider, access_token, refresh_token, expires_at FROM provider_tokens WHERE party_id = ?",
                [.text(partyId)]).first.map {
            ProviderTokens(provider: $0.text("provider") ?? "", accessToken: $0.text("access_token"),
                           refreshToken: $0.text("refresh_token"), expiresAt: $0.date("expires_at"))
        }
    }
}

extension PartyStore {
    public func deleteTokens(partyId: String) throws {
        try run("DELETE FROM provider_tokens WHERE party_id = ?", [.text(partyId)])
    }
}
