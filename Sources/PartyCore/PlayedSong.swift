import Foundation

/// R33: a song the party heard, kept while the party's `history` is on: the song, when it started, its likes and how
/// it ended. Never who added it.
public struct PlayedSong: Equatable, Sendable {
    /// How a song left the stage.
    public enum Ending: String, Sendable, CaseIterable {
        /// It played to its end (the TV reported it).
        case finished
        /// The host skipped it, played another song in its place or removed it.
        case skipped
        /// The crowd's vetoes skipped it (R17a).
        case vetoed
        /// It was playing when the party ended (R5).
        case partyEnded = "party-ended"
    }

    public var track: Track
    /// When it started: the moment its position was 0 (a pause moves it on, as the position is derived, R19).
    public var startedAt: Date
    public var likeCount: Int
    public var ended: Ending

    public init(track: Track, startedAt: Date, likeCount: Int, ended: Ending) {
        self.track = track
        self.startedAt = startedAt
        self.likeCount = likeCount
        self.ended = ended
    }
}

extension AdvanceRequest {
    /// R33: how the song this request moves past ended.
    public var ending: PlayedSong.Ending {
        switch self {
        case .host: .skipped
        case .songEnded, .songEndedWithoutEntry: .finished
        case .crowdVeto: .vetoed
        }
    }
}

/// R33: what every page shows once the party ended: the songs played in order, the five most liked, how many
/// guests came and how many likes the played songs got.
public struct PartyRecap: Equatable, Sendable {
    public static let topCount = 5

    public var songs: [PlayedSong]
    public var guests: Int

    public init(songs: [PlayedSong], guests: Int) {
        self.songs = songs
        self.guests = guests
    }

    /// The five most liked songs; on equal likes the one that played first. Songs without a like are not "liked".
    public var mostLiked: [PlayedSong] {
        Array(songs.enumerated().filter { $0.element.likeCount > 0 }
            .sorted { ($1.element.likeCount, $0.offset) < ($0.element.likeCount, $1.offset) }
            .prefix(Self.topCount).map(\.element))
    }

    public var likes: Int { songs.reduce(0) { $0 &+ $1.likeCount } }
}
