import Foundation

/// The Spotify track shape every provider's search and queue items use (SPEC).
public struct Track: Codable, Hashable, Sendable, Identifiable {
    public struct Artist: Codable, Hashable, Sendable { public let name: String }
    public struct Album: Codable, Hashable, Sendable {
        public struct Image: Codable, Hashable, Sendable { public let url: String }
        public let name: String
        public let images: [Image]
    }

    public let id: String
    public let uri: String
    public let name: String
    public let artists: [Artist]
    public let album: Album
    public let durationMs: Int
    /// Ours: the party's blacklist refuses this song (search results only).
    public let blocked: Bool?

    enum CodingKeys: String, CodingKey { case id, uri, name, artists, album, durationMs = "duration_ms", blocked }

    public var artistNames: String { artists.map(\.name).joined(separator: ", ") }
    public var coverURL: URL? { album.images.first.flatMap { URL(string: $0.url) } }
}

/// A queue item: the track plus the entry's id, likes and flags.
public struct QueueEntry: Codable, Hashable, Sendable, Identifiable {
    public let id: String
    public let track: Track
    public var likeCount: Int
    public let isCurrentlyPlaying: Bool
    public let autofilled: Bool
    public var hasVoted: Bool?
    /// R18a: how long until it starts if nothing changes (older servers leave it out).
    public var startsInMs: Int?
    /// R18a: true on the asking device's own entries (with `deviceId`); never who else added one.
    public var mine: Bool?
    /// R17a: only while the party has the veto on: the vetoes, how many skip it, and (with `deviceId`) whether this
    /// device vetoed it.
    public var vetoCount: Int?
    public var vetoNeeded: Int?
    public var hasVetoed: Bool?
    /// R36: the nickname of whoever asked for it, while the party shows nicknames and the guest chose one.
    public var addedBy: String?

    enum CodingKeys: String, CodingKey {
        case id, likeCount, isCurrentlyPlaying, autofilled, hasVoted, startsInMs, mine, vetoCount, vetoNeeded, hasVetoed, addedBy
    }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        id = try container.decode(String.self, forKey: .id)
        likeCount = try container.decodeIfPresent(Int.self, forKey: .likeCount) ?? 0
        isCurrentlyPlaying = try container.decodeIfPresent(Bool.self, forKey: .isCurrentlyPlaying) ?? false
        autofilled = try container.decodeIfPresent(Bool.self, forKey: .autofilled) ?? false
        hasVoted = try container.decodeIfPresent(Bool.self, forKey: .hasVoted)
        startsInMs = try container.decodeIfPresent(Int.self, forKey: .startsInMs)
        mine = try container.decodeIfPresent(Bool.self, forKey: .mine)
        vetoCount = try container.decodeIfPresent(Int.self, forKey: .vetoCount)
        vetoNeeded = try container.decodeIfPresent(Int.self, forKey: .vetoNeeded)
        hasVetoed = try container.decodeIfPresent(Bool.self, forKey: .hasVetoed)
        addedBy = try container.decodeIfPresent(String.self, forKey: .addedBy)
        track = try Track(from: decoder)
    }

    public func encode(to encoder: any Encoder) throws {
        try track.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(id, forKey: .id)
        try container.encode(likeCount, forKey: .likeCount)
        try container.encode(isCurrentlyPlaying, forKey: .isCurrentlyPlaying)
        try container.encode(autofilled, forKey: .autofilled)
        try container.encodeIfPresent(hasVoted, forKey: .hasVoted)
        try container.encodeIfPresent(startsInMs, forKey: .startsInMs)
        try container.encodeIfPresent(mine, forKey: .mine)
        try container.encodeIfPresent(vetoCount, forKey: .vetoCount)
        try container.encodeIfPresent(vetoNeeded, forKey: .vetoNeeded)
        try container.encodeIfPresent(hasVetoed, forKey: .hasVetoed)
        try container.encodeIfPresent(addedBy, forKey: .addedBy)
    }

    public var uri: String { track.uri }
    public var name: String { track.name }
}

/// R18b: what this device may still add (R11: 10 songs per rolling minute in each party). `nextAddInMs`: until
/// one more add is back, 0 while the budget is full.
public struct AddBudget: Codable, Hashable, Sendable {
    public let addsLeft: Int
    public let nextAddInMs: Int

    public init(addsLeft: Int, nextAddInMs: Int) {
        self.addsLeft = addsLeft
        self.nextAddInMs = nextAddInMs
    }
}

/// The queue as one device sees it: the entries, and the device's add budget (nil from a server without R18b).
public struct GuestQueue: Hashable, Sendable {
    public let entries: [QueueEntry]
    public let budget: AddBudget?
    /// R35: this device's songs waiting for the host's approval (none from a server without approval).
    public var pending: [PendingSong] = []
    /// R36: this device's nickname, while the party shows nicknames and it chose one.
    public var nickname: String? = nil
}

/// R32: a playlist saved in the host's account.
public struct SavedPlaylist: Codable, Hashable, Sendable {
    public let playlistUrl: String
    public let saved: Int
}

/// R32: the playlist file formats the server exports.
public enum PlaylistFormat: String, Sendable, CaseIterable {
    case m3u8, jspf
}

public struct CreatedParty: Codable, Hashable, Sendable { public let id, pin, hostPin, joinUrl: String }
public struct JoinedParty: Codable, Hashable, Sendable { public let id: String }
public struct HostJoinedParty: Codable, Hashable, Sendable { public let id: String; public let guestPin: String? }
public struct PartyInfo: Codable, Hashable, Sendable {
    public let id: String
    public let pin: String
    public let provider: String
    public let hostPin: String?
    public let joinUrl: String?
    /// R34: `cohost` when the client acts with a co-host's token (then never a PIN), with the link's handle.
    public let role: String?
    public let cohostId: String?
}

/// `GET …/track/current` (R20a: `state` and `stallReason` are ours).
public struct CurrentPlayback: Codable, Hashable, Sendable {
    public let isPlaying: Bool
    public let state: String?
    public let stallReason: String?
    public let progressMs: Int
    public let deviceActive: Bool
    public let track: QueueEntry?
}

public struct VoteResult: Codable, Hashable, Sendable { public let liked: Bool; public let likeCount: Int }
/// R17a: a veto toggled (`POST …/track/veto`).
public struct VetoResult: Codable, Hashable, Sendable { public let vetoed: Bool; public let vetoCount: Int; public let vetoNeeded: Int }
/// R30: how many of the banned adder's waiting songs left.
public struct BanResult: Codable, Hashable, Sendable { public let removed: Int }
/// R9b, R17a, R33, R35, R36: the party's own rules (`GET/PUT …/settings`); `vetoShare` 0 is off.
public struct PartySettings: Codable, Hashable, Sendable {
    public var fairQueue: Bool
    public var vetoShare: Double
    /// R33: the party remembers what played (a server without it answers none: false).
    public var history: Bool
    /// R35: whose adds wait for the host's approval: `off`, `new-guests` or `all` (a server without it: off).
    public var approval: String
    /// R36: guests may name themselves (a server without it: false, every guest anonymous).
    public var nicknames: Bool
    public init(fairQueue: Bool = false, vetoShare: Double = 0, history: Bool = false, approval: String = "off", nicknames: Bool = false) {
        self.fairQueue = fairQueue
        self.vetoShare = vetoShare
        self.history = history
        self.approval = approval
        self.nicknames = nicknames
    }

    enum CodingKeys: String, CodingKey { case fairQueue, vetoShare, history, approval, nicknames }

    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        fairQueue = try container.decode(Bool.self, forKey: .fairQueue)
        vetoShare = try container.decode(Double.self, forKey: .vetoShare)
        history = try container.decodeIfPresent(Bool.self, forKey: .history) ?? false
        approval = try container.decodeIfPresent(String.self, forKey: .approval) ?? "off"
        nicknames = try container.decodeIfPresent(Bool.self, forKey: .nicknames) ?? false
    }
}
public struct PlaybackResult: Codable, Hashable, Sendable {
    public let status: String
    public let track: QueueEntry?
    public let message: String?
}
public struct PauseResult: Codable, Hashable, Sendable { public let isPlaying: Bool; public let progressMs: Int }
public struct DeviceRegistration: Codable, Hashable, Sendable { public let deviceActive: Bool; public let monitorToken: String }
public struct Playlist: Codable, Hashable, Sendable { public let id: String; public let name: String }

/// One server-sent event: `{"type", "timestamp", "payload":{…}}` with string payload values (SPEC).
public struct PartyEvent: Hashable, Sendable {
    public let id: String?
    public let type: String
    public let payload: [String: String]

    public init(id: String? = nil, type: String, payload: [String: String]) {
        self.id = id
        self.type = type
        self.payload = payload
    }

    public var partyId: String? { payload["partyId"] }

    /// Not from the server: the stream is open (first or again). Events published before it (or that the server
    /// could not replay after a restart) may be missing, so models reload their state on it.
    public static let connected = "stream-connected"

    /// From the server: the `Last-Event-ID` this stream resumed with is older than the party's event log
    /// keeps (or unknown), so events were missed that no replay brings back: models reload, as on `connected`.
    public static let resync = "resync"
}
