import Foundation
import HTTPServer
import JSONKit
import PartyCore

extension Routes {
    /// R33: what the party heard, for its host while it runs and as a recap for every page once it ended.
    func addHistoryRoutes(to router: inout Router) {
        let service = self.service
        router.add("GET", "/api/party/{id}/history",
                   summary: "The songs played while history is on, in the order they started: {items: [{uri, name, artists, startedAt, likeCount, ended}]}; 409 history_off (R33)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("history") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                let songs = try service.history(of: party)
                return .json(["items": .array(songs.map { Self.playedSongJSON($0, base: service.publicBase) })])
            }
        }
        router.add("GET", "/api/party/{id}/recap",
                   summary: "An ended party's recap where it kept its history: {songs, mostLiked (five), guests, likes}; 404 for a running party or one without history (R33)") { request throws(HTTPError) in
            try respond("recap") {
                let recap = try service.recap(partyId: request.parameter("id"))
                let base = service.publicBase
                return .json([
                    "songs": .array(recap.songs.map { Self.playedSongJSON($0, base: base) }),
                    "mostLiked": .array(recap.mostLiked.map { Self.playedSongJSON($0, base: base) }),
                    "guests": .integer(recap.guests),
                    "likes": .integer(recap.likes),
                ])
            }
        }
    }

    /// A played song: the track shape, `startedAt` (epoch ms), `likeCount` and `ended` (`finished`, `skipped`, `vetoed`).
    static func playedSongJSON(_ song: PlayedSong, base: String) -> JSON {
        .object(TrackJSON.members(song.track, base: base, capacity: 9) + [
            ("startedAt", .integer(Int(saturating: song.startedAt.timeIntervalSince1970 * 1000))),
            ("likeCount", .integer(song.likeCount)),
            ("ended", .string(song.ended.rawValue)),
        ])
    }
}
