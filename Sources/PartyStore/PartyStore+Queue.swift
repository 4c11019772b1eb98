import Foundation
import PartyCore

extension PartyStore {
    /// Artists are stored as one text column, joined by a unit separator no title contains.
    static let artistSeparator = "\u{1F}"

    /// The party's entries with their like counts, in storage order; `Queue.ordered()` is the only ordering.
    /// With `uri`, only that song's entries (at most the playing and one waiting copy, R10): all a like needs.
    /// (The CAST names the parameter's type for PostgreSQL, which cannot infer it from `IS NULL`.)
    public func entries(partyId: String, uri: String?) throws -> [QueueEntry] {
        try run("""
            SELECT id, uri, track_id, name, artists, album, image_url, duration_ms, isrc, added_at, added_by, autofilled, like_count,
                (SELECT COUNT(*) FROM vetoes x WHERE x.entry_id = queue_entries.id) AS veto_count
            FROM queue_entries WHERE party_id = ?1 AND (CAST(?2 AS TEXT) IS NULL OR uri = ?2)
            """, [.text(partyId), .optional(uri)]).map { row in
            let id = row.integer("id") ?? 0
            let track = Track(
                id: row.text("track_id") ?? "", uri: row.text("uri") ?? "", name: row.text("name") ?? "",
                artists: (row.text("artists") ?? "").components(separatedBy: Self.artistSeparator).filter { !$0.isEmpty },
                album: row.text("album") ?? "", imageURL: row.text("image_url"), durationMs: Int(row.integer("duration_ms") ?? 0),
                isrc: row.text("isrc"))
            return QueueEntry(id: id, track: track, addedAt: row.date("added_at") ?? Date(timeIntervalSince1970: 0),
                              addedBy: row.text("added_by") ?? "", autofilled: row.bool("autofilled"),
                              likeCount: Int(row.integer("like_count") ?? 0), vetoCount: Int(row.integer("veto_count") ?? 0))
        }
    }

    /// R18: the ids of the party's entries that `deviceId` liked (one primary-key probe per entry).
    public func entriesLiked(by deviceId: String, partyId: String) throws -> Set<Int64> {
        Set(try run("""
            SELECT e.id FROM queue_entries e JOIN votes v ON v.entry_id = e.id AND v.device_id = ? WHERE e.party_id = ?
            """, [.text(deviceId), .text(partyId)]).compactMap { $0.integer("id") })
    }

    /// The queue with the ordering rule the party chose: R9b's fairness (and the played counts it needs) only
    /// when its `fairQueue` is on.
    public func queue(partyId: String, currentEntryId: Int64?) throws -> Queue {
        let fair = try run("SELECT fair_queue FROM parties WHERE id = ?", [.text(partyId)]).first?.bool("fair_queue") ?? false
        return try queue(partyId: partyId, currentEntryId: currentEntryId, fair: fair)
    }

    /// The queue of a party whose settings were just read (`fair`: its `fairQueue`).
    public func queue(partyId: String, currentEntryId: Int64?, fair: Bool) throws -> Queue {
        Queue(entries: try entries(partyId: partyId), currentEntryId: currentEntryId,
                     fairness: fair ? FairOrder(playedByAdder: try playedCounts(partyId: partyId)) : nil)
    }

    /// R30: the party's bans, by adder and by address (read once per transaction that holds the party's row).
    public func bans(partyId: String) throws -> (adders: Set<String>, addresses: Set<String>) {
        var adders: Set<String> = []
        var addresses: Set<String> = []
        for row in try run("SELECT adder, address FROM bans WHERE party_id = ?", [.text(partyId)]) {
            if let adder = row.text("adder") { adders.insert(adder) }
            if let address = row.text("address") { addresses.insert(address) }
        }
        return (adders, addresses)
    }

    /// R9b: one more song of `adder` played (ended or skipped) in the party.
    public func countPlayed(adder: String, partyId: String) throws {
        try run("""
            INSERT INTO played_counts (party_id, adder, played) VALUES (?, ?, 1)
            ON CONFLICT(party_id, adder) DO UPDATE SET played = played_counts.played + 1
            """, [.text(partyId), .text(adder)])
    }

    /// R9b: songs played per adder in the party.
    public func playedCounts(partyId: String) throws -> [String: Int] {
        var counts: [String: Int] = [:]
        for row in try run("SELECT adder, played FROM played_counts WHERE party_id = ?", [.text(partyId)]) {
            if let adder = row.text("adder") { counts[adder] = Int(row.integer("played") ?? 0) }
        }
        return counts
    }

    /// Inserts a new entry and returns its id.
    @discardableResult
    public func insertEntry(partyId: String, track: Track, addedAt: Date, addedBy: String, autofilled: Bool) throws -> Int64 {
        try database.insert("""
            INSERT INTO queue_entries (party_id, uri, track_id, name, artists, album, image_url, duration_ms,
                added_at, added_by, autofilled, isrc) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """, [.text(partyId), .text(track.uri), .text(track.id), .text(track.name),
                  .text(track.artists.joined(separator: Self.artistSeparator)), .text(track.album),
                  .optional(track.imageURL), .integer(Int64(track.durationMs)), .date(addedAt), .text(addedBy),
                  .bool(autofilled), .optional(track.isrc)])
    }

    /// Turns an auto-filled entry into a guest's request, as if just added (its likes stay).
    public func promote(entryId: Int64, addedBy: String, at now: Date) throws {
        try run("UPDATE queue_entries SET autofilled = 0, added_by = ?, added_at = ? WHERE id = ?",
                [.text(addedBy), .date(now), .integer(entryId)])
    }

    /// R14: a played or removed entry is deleted with its votes; there is no history.
    public func deleteEntry(id: Int64) throws {
        try run("DELETE FROM queue_entries WHERE id = ?", [.integer(id)])
    }

    /// Remembers that `uri` finished playing (or was skipped) in the party; keeps the newest 50.
    public func recordPlayed(uri: String, partyId: String, at now: Date) throws {
        try run("INSERT INTO played (party_id, uri, played_at) VALUES (?, ?, ?)", [.text(partyId), .text(uri), .date(now)])
        try run("""
            DELETE FROM played WHERE party_id = ? AND rowid NOT IN
                (SELECT rowid FROM played WHERE party_id = ? ORDER BY played_at DESC, rowid DESC LIMIT 50)
            """, [.text(partyId), .text(partyId)])
    }

    /// The party's recently played uris, newest first.
    public func recentlyPlayed(partyId: String) throws -> [String] {
        try run("SELECT uri FROM played WHERE party_id = ? ORDER BY played_at DESC, rowid DESC", [.text(partyId)])
            .compactMap { $0.text("uri") }
    }

    /// R17: one like per device per entry. `wanted` nil toggles it (the original clients); true or false sets it, so a
    /// request repeated after an answer that never came changes nothing twice. Returns whether it is liked now and
    /// whether this call changed it. The entry's `like_count` moves with its votes, in the caller's transaction.
    public func setVote(entryId: Int64, deviceId: String, wanted: Bool?) throws -> (liked: Bool, changed: Bool) {
        if let statements = database.dialect.voteWithCount {
            let values: [SQLValue] = [.integer(entryId), .text(deviceId)]
            if wanted != false, !(try run(statements.like, values).isEmpty) { return (true, true) }
            if wanted == true { return (true, false) }
            return (false, !(try run(statements.unlike, values).isEmpty))
        }
        return try atomically {
            // A like first (a like storm of new phones: one statement, not a delete that found nothing and then the insert).
            var liked = false
            if wanted != false {
                try run("INSERT INTO votes (entry_id, device_id) VALUES (?, ?) ON CONFLICT DO NOTHING", [.integer(entryId), .text(deviceId)])
                liked = database.changes > 0
                if wanted == true && !liked { return (true, false) }
            }
            if !liked {
                try run("DELETE FROM votes WHERE entry_id = ? AND device_id = ?", [.integer(entryId), .text(deviceId)])
                if wanted == false && database.changes == 0 { return (false, false) }
            }
            try run("UPDATE queue_entries SET like_count = like_count + ? WHERE id = ?", [.integer(liked ? 1 : -1), .integer(entryId)])
            return (liked, true)
        }
    }
}
