import Foundation
import PartyCore

/// R35: guests' adds waiting for the host, and the guests the host approved a song of.
extension PartyStore {
    public func insertPending(partyId: String, track: Track, requestedAt: Date, adder: String) throws -> Int64 {
        try database.insert("""
            INSERT INTO pending_songs (party_id, uri, track_id, name, artists, album, image_url, duration_ms, isrc,
                requested_at, added_by) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(partyId), .text(track.uri), .text(track.id), .text(track.name),
                  .text(track.artists.joined(separator: Self.artistSeparator)), .text(track.album),
                  .optional(track.imageURL), .integer(Int64(track.durationMs)), .optional(track.isrc), .date(requestedAt),
                  .text(adder)])
    }

    /// The party's waiting songs in the order they were asked for; with `adder`, only that guest's.
    public func pendingSongs(partyId: String, adder: String?) throws -> [PendingSong] {
        try run("""
            SELECT id, uri, track_id, name, artists, album, image_url, duration_ms, isrc, requested_at, added_by
            FROM pending_songs WHERE party_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR added_by = ?2) ORDER BY requested_at, id
            """, [.text(partyId), .optional(adder)]).map(Self.pendingSong)
    }

    public func pendingSong(id: Int64, partyId: String) throws -> PendingSong? {
        try run("""
            SELECT id, uri, track_id, name, artists, album, image_url, duration_ms, isrc, requested_at, added_by
            FROM pending_songs WHERE party_id = ? AND id = ?
            """, [.text(partyId), .integer(id)]).first.map(Self.pendingSong)
    }

    public func deletePending(id: Int64) throws {
        try run("DELETE FROM pending_songs WHERE id = ?", [.integer(id)])
    }

    public func pendingCount(partyId: String) throws -> Int {
        Int(try run("SELECT COUNT(*) AS count FROM pending_songs WHERE party_id = ?", [.text(partyId)]).first?.integer("count") ?? 0)
    }

    /// The host approved a song of `adder`: under `new-guests` its adds enter at once from now on.
    public func approveAdder(_ adder: String, partyId: String) throws {
        try run("INSERT INTO approved_adders (party_id, adder) VALUES (?, ?) ON CONFLICT DO NOTHING", [.text(partyId), .text(adder)])
    }

    public func isApprovedAdder(_ adder: String, partyId: String) throws -> Bool {
        !(try run("SELECT 1 AS approved FROM approved_adders WHERE party_id = ? AND adder = ?", [.text(partyId), .text(adder)]).isEmpty)
    }

    private static func pendingSong(_ row: Row) -> PendingSong {
        let track = Track(
            id: row.text("track_id") ?? "", uri: row.text("uri") ?? "", name: row.text("name") ?? "",
            artists: (row.text("artists") ?? "").components(separatedBy: artistSeparator).filter { !$0.isEmpty },
            album: row.text("album") ?? "", imageURL: row.text("image_url"), durationMs: Int(row.integer("duration_ms") ?? 0),
            isrc: row.text("isrc"))
        return PendingSong(id: row.integer("id") ?? 0, track: track, requestedAt: row.date("requested_at") ?? Date(timeIntervalSince1970: 0),
                           adder: row.text("added_by") ?? "")
    }
}
