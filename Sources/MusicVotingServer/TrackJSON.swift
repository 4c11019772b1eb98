import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine

/// SPEC: every provider's tracks in Spotify's track shape. Cover URLs are absolute, built on the public URL
/// (`base`): the iOS app loads them as they are.
enum TrackJSON {
    static func track(_ track: Track, base: String) -> JSON {
        .object(members(track, base: base))
    }

    /// `id`: what the `id` member holds (a queue item's is its entry's id); the track's id by default.
    static func members(_ track: Track, base: String, id: String? = nil, capacity: Int = 6) -> [(String, JSON)] {
        let image = track.imageURL.map { $0.hasPrefix("/") ? base + $0 : $0 }
        var members: [(String, JSON)] = []
        members.reserveCapacity(capacity)
        members += [
            ("id", .string(id ?? track.id)),
            ("uri", .string(track.uri)),
            ("name", .string(track.name)),
            ("artists", .array(track.artists.map { ["name": .string($0)] })),
            ("album", ["name": .string(track.album), "images": .array(image.map { [["url": .string($0)]] } ?? [])]),
            ("duration_ms", .integer(track.durationMs)),
        ]
        return members
    }

    /// A queue item: the track shape plus the entry's id, likes and flags (R18 `hasVoted` when asked).
    /// `liked` holds the entries the asking device liked, when it said who it is. R18a: `startsInMs` when known,
    /// and `"mine": true` only on the asking device's own entries (never who else added one).
    static func entry(_ entry: QueueEntry, currentEntryId: Int64?, liked: Set<Int64>?, base: String,
                      startsInMs: Int? = nil, mine: Bool = false, veto: VetoView? = nil, addedBy: String? = nil) -> JSON {
        var fields = members(entry.track, base: base, id: String(entry.id), capacity: 16)
        fields += [
            ("trackId", .string(entry.track.id)),
            ("likeCount", .integer(entry.likeCount)),
            ("isCurrentlyPlaying", .bool(entry.id == currentEntryId)),
            ("autofilled", .bool(entry.autofilled)),
        ]
        if let liked { fields.append(("hasVoted", .bool(liked.contains(entry.id)))) }
        if let startsInMs { fields.append(("startsInMs", .integer(startsInMs))) }
        if mine { fields.append(("mine", .bool(true))) }
        // R36: only while the party shows nicknames and the adder chose one (the older clients see today's shape).
        if let addedBy { fields.append(("addedBy", .string(addedBy))) }
        // R17a, only while the party has the veto on (the older clients see the shape they always saw) and the
        // entry's voters could reach the threshold (pages offer the veto where it can succeed).
        if let veto, let needed = veto.needed(for: entry) {
            fields += [("vetoCount", .integer(entry.vetoCount)), ("vetoNeeded", .integer(needed))]
            if let vetoed = veto.vetoed { fields.append(("hasVetoed", .bool(vetoed.contains(entry.id)))) }
        }
        return .object(fields)
    }
}
