import Foundation

/// One party: its PINs, its provider and its playback state.
public struct Party: Equatable, Sendable {
    public static let autoEndAfter: TimeInterval = 2 * 24 * 3600
    public static let purgeAfterEnd: TimeInterval = 30 * 24 * 3600

    public var id: String
    public var guestPin: String
    public var hostPin: String
    public var provider: String
    public var createdAt: Date
    public var endedAt: Date?
    public var defaultPlaylistId: String?
    public var playback: Playback
    /// R24a: wrong host PINs evaluated for this party so far (at most `SecretGuard.lifetimeLimit`).
    public var wrongPinChecks: Int
    /// R24a: the host page's long secret, a credential no budget stands in front of (nil: made before it existed).
    public var hostToken: String?
    /// R24a: wrong `host-join` PINs evaluated while this party was active; past `SecretGuard.lifetimeLimit`, `host-join`
    /// no longer finds it (the party's own budget stays untouched).
    public var hostJoinMisses: Int
    /// R9b, R17a: the host's settings for this party.
    public var settings: PartySettings

    public init(id: String, guestPin: String, hostPin: String, provider: String, createdAt: Date,
                endedAt: Date? = nil, defaultPlaylistId: String? = nil, playback: Playback = Playback(), wrongPinChecks: Int = 0,
                hostToken: String? = nil, hostJoinMisses: Int = 0, settings: PartySettings = .apiDefault) {
        self.id = id
        self.guestPin = guestPin
        self.hostPin = hostPin
        self.provider = provider
        self.createdAt = createdAt
        self.endedAt = endedAt
        self.defaultPlaylistId = defaultPlaylistId
        self.playback = playback
        self.wrongPinChecks = wrongPinChecks
        self.hostToken = hostToken
        self.hostJoinMisses = hostJoinMisses
        self.settings = settings
    }

    public var isActive: Bool { endedAt == nil }

    /// R6: a party not ended within 2 days of creation ends by itself.
    public func isDueToAutoEnd(at now: Date) -> Bool {
        isActive && now.timeIntervalSince(createdAt) >= Self.autoEndAfter
    }

    /// R6: an ended party's data is deleted 1 month after it ended.
    public func isDueForPurge(at now: Date) -> Bool {
        guard let endedAt else { return false }
        return now.timeIntervalSince(endedAt) >= Self.purgeAfterEnd
    }
}
