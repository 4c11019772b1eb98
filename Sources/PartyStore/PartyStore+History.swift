import Foundation
import PartyCore

/// R33: the songs a party heard while its `history` was on, kept until the party's purge (R6).
extension PartyStore {
    public func recordPlayedSong(_ song: PlayedSong, partyId: String) throws {
        let track = song.track
        try run("""
            INSERT INTO played_songs (party_id, uri, track_id, name, artists, album, image_url, duration_ms, started_at,
                like_count, ended) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(partyId), .text(track.uri), .text(track.id), .text(track.name),
                  .text(track.artists.joined(separator: Self.artistSeparator)), .text(track.album), .optional(track.imageURL),
                  .integer(Int64(track.durationMs)), .date(song.startedAt), .integer(Int64(song.likeCount)),
                  .text(song.ended.rawValue)])
    }

    /// The songs in the order they started.
    public func playedSongs(partyId: String) throws -> [PlayedSong] {
        try run("""
            SELECT uri, track_id, name, artists, album, image_url, duration_ms, started_at, like_count, ended
            FROM played_songs WHERE party_id = ? ORDER BY started_at, rowid
            """, [.text(partyId)]).map { row in
            let track = Track(
                id: row.text("track_id") ?? "", uri: row.text("uri") ?? "", name: row.text("name") ?? "",
                artists: (row.text("artists") ?? "").components(separatedBy: Self.artistSeparator).filter { !$0.isEmpty },
                album: row.text("album") ?? "", imageURL: row.text("image_url"), durationMs: Int(row.integer("duration_ms") ?? 0))
            return PlayedSong(track: track, startedAt: row.date("started_at") ?? Date(timeIntervalSince1970: 0),
                              likeCount: Int(row.integer("like_count") ?? 0),
                              ended: row.text("ended").flatMap(PlayedSong.Ending.init(rawValue:)) ?? .finished)
        }
    }

    /// How many guests the party admitted (R33's recap counts them; who they are stays unsaid).
    public func guestCount(partyId: String) throws -> Int {
        Int(try run("SELECT COUNT(*) AS count FROM guests WHERE party_id = ?", [.text(partyId)]).first?.integer("count") ?? 0)
    }
}
