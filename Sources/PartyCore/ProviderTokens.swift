import Foundation

/// A provider's OAuth tokens for one party (R7: the refresh token survives restarts; R5 deletes them).
public struct ProviderTokens: Equatable, Sendable {
    public var provider: String
    public var accessToken: String?
    public var refreshToken: String?
    public var expiresAt: Date?

    public init(provider: String, accessToken: String?, refreshToken: String?, expiresAt: Date?) {
        self.provider = provider
        self.accessToken = accessToken
        self.refreshToken = refreshToken
        self.expiresAt = expiresAt
    }
}

extension ProviderTokens {
    /// Whether the access token is missing or expires within `margin` seconds.
    public func needsRefresh(at now: Date, margin: TimeInterval = 60) -> Bool {
        guard accessToken != nil, let expiresAt else { return true }
        return expiresAt.timeIntervalSince(now) < margin
    }
}
