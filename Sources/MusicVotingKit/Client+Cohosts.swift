import Foundation

/// R34: a co-host link the host made (`POST …/cohosts`): the link to pass on, its token (the co-host's secret) and
/// its handle (`id`), by which the host lists and revokes it.
public struct CreatedCohost: Codable, Hashable, Sendable {
    public let url: String
    public let token: String
    public let id: String
    /// Milliseconds since 1970.
    public let createdAt: Int
    /// The link as a QR code: a `data:image/png;base64,…` URL.
    public let qr: String?
}

/// R34: a live co-host link as the host's list shows it: its handle, when it was made and when it was first used
/// (nil while nobody opened it). Never its token.
public struct CohostEntry: Codable, Hashable, Sendable, Identifiable {
    public let id: String
    public let createdAt: Int
    public let joinedAt: Int?
}

/// R34: the host's list, who joined first first, and how many live links a party may have.
public struct CohostList: Codable, Hashable, Sendable {
    public let cohosts: [CohostEntry]
    public let limit: Int
}

/// R34: what a co-host link names: the server, the party and the co-host's token
/// (`<server>/cohost#party=ID&cohost=TOKEN`). The token travels in the fragment, which no server ever receives.
public struct CohostInvitation: Hashable, Sendable {
    public let server: URL
    public let partyId: String
    public let token: String

    /// Parses a link the host passed on; nil for anything else (a wrong path, a malformed party id or token).
    public init?(link: String) {
        guard let components = URLComponents(string: link.trimmingCharacters(in: .whitespacesAndNewlines)),
              let scheme = components.scheme?.lowercased(), scheme == "http" || scheme == "https", components.host != nil,
              components.path.hasSuffix("/cohost"), let fragment = components.fragment else { return nil }
        var fields: [String: String] = [:]
        for pair in fragment.split(separator: "&") {
            let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
            if parts.count == 2 { fields[parts[0]] = parts[1] }
        }
        guard let partyId = fields["party"], let token = fields["cohost"], Self.isHex32(partyId), Self.isHex32(token) else { return nil }
        var base = components
        base.path = String(components.path.dropLast("/cohost".count))
        base.fragment = nil
        base.query = nil
        guard let server = base.url else { return nil }
        self.server = server
        self.partyId = partyId
        self.token = token
    }

    static func isHex32(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }
}

struct RevokedCohosts: Decodable { let revoked: Int }

extension MusicVotingClient {
    /// A client that acts as a co-host (R34): its token goes where the host PIN would, and the server allows every
    /// host call but ending the party, the settings, the co-hosts, the default playlist and the PINs (403 `host_only`).
    public static func cohost(_ invitation: CohostInvitation, limits: ResponseLimits = .api) -> MusicVotingClient {
        MusicVotingClient(baseURL: invitation.server, hostPin: invitation.token, limits: limits)
    }

    /// R34 (host): a new co-host link; past 5 live ones 409 `cohost_limit`.
    public func createCohost(_ id: String) async throws(APIError) -> CreatedCohost {
        try await send("POST", party(id, "/cohosts"), host: true)
    }

    /// R34 (host): the live co-host links, who joined first first.
    public func cohosts(_ id: String) async throws(APIError) -> CohostList { try await send("GET", party(id, "/cohosts"), host: true) }

    /// R34 (host): revokes one link, by its handle (`CohostEntry.id`) or its token; it stops working at once.
    public func revokeCohost(_ id: String, cohost: String) async throws(APIError) {
        // The handle may come from a server's answer: only letters and digits go into the path.
        guard !cohost.isEmpty, cohost.utf8.count <= 64, cohost.unicodeScalars.allSatisfy({ $0.isASCII && CharacterSet.alphanumerics.contains($0) }) else {
            throw .invalidResponse("a co-host handle no path can carry")
        }
        try await sendEmpty("DELETE", party(id, "/cohosts/\(cohost)"), host: true)
    }

    /// R34 (host): revokes every live link; returns how many.
    @discardableResult
    public func revokeAllCohosts(_ id: String) async throws(APIError) -> Int {
        let answer: RevokedCohosts = try await send("DELETE", party(id, "/cohosts"), host: true)
        return answer.revoked
    }
}
