import Foundation

/// R35: a guest's song waiting for the host's approval: the track (its `id` is the waiting song's) and when it was
/// asked for. Never who asked.
public struct PendingSong: Decodable, Hashable, Sendable, Identifiable {
    public let track: Track
    public let requestedAt: Date
    /// R36: the guest's nickname, where the party shows nicknames (for the host's list).
    public let addedBy: String?

    public var id: String { track.id }

    enum CodingKeys: String, CodingKey { case requestedAt, addedBy }

    public init(from decoder: any Decoder) throws {
        track = try Track(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        requestedAt = Date(timeIntervalSince1970: Double(try container.decode(Int.self, forKey: .requestedAt)) / 1000)
        addedBy = try container.decodeIfPresent(String.self, forKey: .addedBy)
    }
}

/// R35: what an add did: the song entered the queue, or waits for the host (`pendingIds`).
public struct AddResult: Decodable, Hashable, Sendable {
    public let status: String
    public let pendingIds: [String]?

    /// Whether the party's approval holds the song until the host decides.
    public var isPending: Bool { status == "pending" }
}

struct PendingSongs: Decodable { let items: LossyArray<PendingSong> }

extension MusicVotingClient {
    /// R35: adds a song and says whether it waits for the host's approval.
    public func addReportingApproval(_ id: String, uri: String, deviceId: String) async throws(APIError) -> AddResult {
        try await send("POST", party(id, "/track/addToPlaylist"), body: ["uri": uri, "deviceId": deviceId])
    }
    /// R35 (host): the songs waiting for approval, in the order they were asked for.
    public func pendingSongs(_ id: String) async throws(APIError) -> [PendingSong] {
        let answer: PendingSongs = try await send("GET", party(id, "/pending"), host: true)
        return answer.items.elements
    }
    /// R35 (host): lets a waiting song into the queue, as if added now.
    public func approve(_ id: String, pendingId: String) async throws(APIError) {
        try await sendEmpty("POST", party(id, "/pending/\(Self.pathSegment(pendingId))/approve"), host: true)
    }
    /// R35 (host): turns a waiting song away.
    public func decline(_ id: String, pendingId: String) async throws(APIError) {
        try await sendEmpty("POST", party(id, "/pending/\(Self.pathSegment(pendingId))/decline"), host: true)
    }

    /// An id as one path segment, whatever a server answered.
    static func pathSegment(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
    }
}
