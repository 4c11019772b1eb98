import Foundation

/// R34: a co-host link the host made. `token` is the co-host's secret (it proves the phone on every call, like the
/// host token); `id` is a short handle of no power, which the host's list and the party's events name it by.
public struct Cohost: Equatable, Sendable {
    public var id: String
    public var token: String
    public var createdAt: Date
    /// When the link was first used (the host's list orders by it); nil while nobody opened it.
    public var joinedAt: Date?
    /// When the host revoked it; a revoked token is recognised (its phone is told) but proves nothing.
    public var revokedAt: Date?

    /// R34: at most this many live links per party.
    public static let liveLimit = 5
    /// Revoked links kept per party, so a phone that still holds one hears "revoked" rather than "wrong PIN";
    /// older ones are dropped when the host makes a new link.
    public static let revokedKept = 20

    public init(id: String, token: String, createdAt: Date, joinedAt: Date? = nil, revokedAt: Date? = nil) {
        self.id = id
        self.token = token
        self.createdAt = createdAt
        self.joinedAt = joinedAt
        self.revokedAt = revokedAt
    }

    public var isLive: Bool { revokedAt == nil }

    /// A short handle: 12 hex digits drawn apart from the token, so it says nothing about it.
    public static func handle<R: RandomNumberGenerator>(using random: inout R) -> String {
        String(Identifiers.token(using: &random).prefix(12))
    }

    /// Whether `text` can be a handle (the path of `DELETE …/cohosts/{id}` takes a handle or a token).
    public static func isWellFormedHandle(_ text: String) -> Bool {
        text.utf8.count == 12 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// The host's list: who joined first comes first; links nobody opened yet follow, oldest first.
    public static func listed(_ cohosts: [Cohost]) -> [Cohost] {
        cohosts.filter(\.isLive).sorted { left, right in
            switch (left.joinedAt, right.joinedAt) {
            case let (leftJoined?, rightJoined?): return leftJoined != rightJoined ? leftJoined < rightJoined : left.createdAt < right.createdAt
            case (.some, nil): return true
            case (nil, .some): return false
            case (nil, nil): return left.createdAt < right.createdAt
            }
        }
    }
}
