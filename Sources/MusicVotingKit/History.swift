import Foundation

/// R33: a song the party heard (`GET …/history`, and a party's recap): the track, when it started, its likes and how
/// it ended (`finished`, `skipped`, `vetoed`, `party-ended`). Never who added it.
public struct PlayedSong: Decodable, Hashable, Sendable, Identifiable {
    public let track: Track
    public let startedAt: Date
    public let likeCount: Int
    public let ended: String

    public var id: String { "\(track.uri)@\(startedAt.timeIntervalSince1970)" }

    enum CodingKeys: String, CodingKey { case startedAt, likeCount, ended }

    public init(from decoder: any Decoder) throws {
        track = try Track(from: decoder)
        let container = try decoder.container(keyedBy: CodingKeys.self)
        startedAt = Date(timeIntervalSince1970: Double(try container.decode(Int.self, forKey: .startedAt)) / 1000)
        likeCount = try container.decodeIfPresent(Int.self, forKey: .likeCount) ?? 0
        ended = try container.decode(String.self, forKey: .ended)
    }
}

struct PlayedSongs: Decodable, Sendable { let items: [PlayedSong] }

/// R33: what every page shows once a party that kept its history ended (`GET …/recap`).
public struct PartyRecap: Decodable, Hashable, Sendable {
    /// Every song played, in the order they started.
    public let songs: [PlayedSong]
    /// The five most liked.
    public let mostLiked: [PlayedSong]
    public let guests: Int
    public let likes: Int
}

extension MusicVotingClient {
    /// R33 (host): the songs played while the party keeps its history; 409 `history_off` while it keeps none.
    public func history(_ id: String) async throws(APIError) -> [PlayedSong] {
        let answer: PlayedSongs = try await send("GET", party(id, "/history"), host: true)
        return answer.items
    }
    /// R33 (anyone): an ended party's recap; 404 while it runs, or when it kept no history.
    public func recap(_ id: String) async throws(APIError) -> PartyRecap { try await send("GET", party(id, "/recap")) }
}
