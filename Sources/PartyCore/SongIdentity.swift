import Foundation

/// R10a: what makes two tracks versions of one song: their normalised title and first artist.
/// Two tracks are the same song when both carry an ISRC and they are equal, or when their identities are equal.
public struct SongIdentity: Hashable, Sendable {
    public let title: String
    public let artist: String

    /// Normalises `title` and the first of `artists` (rules in SongIdentity+Normalising.swift).
    public init(title: String, artists: [String]) {
        let artist = Self.artistKey(artists.first ?? "")
        self.artist = artist
        self.title = Self.titleKey(title, artist: artist)
    }

    public init(_ track: Track) {
        self.init(title: track.name, artists: track.artists)
    }

    /// R10a: equal ISRCs (when both have one) or equal identities. Differing ISRCs do not keep two tracks apart:
    /// a remaster gets a new ISRC and is still the same song.
    public static func sameSong(_ left: Track, _ right: Track) -> Bool {
        if left.uri == right.uri { return true }
        if let leftCode = left.isrc, let rightCode = right.isrc, leftCode == rightCode { return true }
        return SongIdentity(left) == SongIdentity(right)
    }
}

/// R10/R10a: the waiting entries looked up by uri, ISRC and identity, built once for many candidates (a refill
/// checks dozens against a long queue).
public struct WaitingSongs: Sendable {
    private var byUri: [String: QueueEntry] = [:]
    private var byCode: [String: QueueEntry] = [:]
    private var byIdentity: [SongIdentity: QueueEntry] = [:]
    /// 1-based place of each waiting entry in R9 order (1 plays next).
    private var places: [Int64: Int] = [:]

    /// `waiting` in R9 order; the first copy of a song wins.
    public init(_ waiting: [QueueEntry]) {
        for (index, entry) in waiting.enumerated() { insert(entry, place: index + 1) }
    }

    mutating func insert(_ entry: QueueEntry, place: Int) {
        places[entry.id] = places[entry.id] ?? place
        if byUri[entry.track.uri] == nil { byUri[entry.track.uri] = entry }
        if let code = entry.track.isrc, byCode[code] == nil { byCode[code] = entry }
        let identity = SongIdentity(entry.track)
        if byIdentity[identity] == nil { byIdentity[identity] = entry }
    }

    /// The waiting copy of `track`, if any: same uri, else same ISRC, else same identity (`SongIdentity.sameSong`).
    public func copy(of track: Track) -> QueueEntry? {
        if let entry = byUri[track.uri] { return entry }
        if let code = track.isrc, let entry = byCode[code] { return entry }
        return byIdentity[SongIdentity(track)]
    }

    public func place(of entry: QueueEntry) -> Int { places[entry.id] ?? 0 }
}
