import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine

extension Routes {
    /// R35: the songs waiting for approval, for whoever decides them: the host and its co-hosts (R34).
    func addPendingRoutes(to router: inout Router) {
        let service = self.service
        router.add("GET", "/api/party/{id}/pending",
                   summary: "The songs waiting for approval in the order they were asked for: {items: [track + id, requestedAt, addedBy while nicknames are on]} (R35, R36)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("pending") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                let songs = try service.pendingSongs(of: party)
                let names = try service.nicknames(of: party)
                return .json(["items": .array(songs.map { Self.pendingSongJSON($0, base: service.publicBase, addedBy: names[$0.adder]) })])
            }
        }
        router.add("POST", "/api/party/{id}/pending/{pendingId}/approve",
                   summary: "Let a waiting song into the queue, by R9 as if added now; 404 not_pending, 409 when it waits in the queue meanwhile (R35)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("approve") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                try service.approve(pendingId: try Self.pendingId(request), party: party)
                return .json(["status": "approved"])
            }
        }
        router.add("POST", "/api/party/{id}/pending/{pendingId}/decline",
                   summary: "Turn a waiting song away; 404 not_pending (R35)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("decline") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                try service.decline(pendingId: try Self.pendingId(request), party: party)
                return .json(["status": "declined"])
            }
        }
    }

    /// The `{pendingId}` of the path: digits only, in range (R24b); anything else names no waiting song.
    static func pendingId(_ request: Request) throws -> Int64 {
        let text = request.parameter("pendingId")
        guard text.count <= 18, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
              let id = Int64(text) else { throw PartyError.notPending }
        return id
    }

    /// A waiting song: the track shape with the waiting song's `id`, and `requestedAt` (epoch ms). Never which device
    /// asked; the nickname the guest chose, where the party shows nicknames (R36).
    static func pendingSongJSON(_ song: PendingSong, base: String, addedBy: String? = nil) -> JSON {
        .object(TrackJSON.members(song.track, base: base, id: String(song.id), capacity: 9) + [
            ("requestedAt", .integer(Int(saturating: song.requestedAt.timeIntervalSince1970 * 1000))),
        ] + (addedBy.map { [("addedBy", JSON.string($0))] } ?? []))
    }
}
