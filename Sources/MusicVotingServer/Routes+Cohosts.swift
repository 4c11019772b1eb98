import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine
import Rendering

/// R34: the host's co-host links. Only the host's own PIN or token makes, lists and revokes them.
extension Routes {
    func addCohostRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/party/{id}/cohosts", summary: "Make a co-host link (R34): 201 {url, token, id, createdAt, qr (PNG data URL)}; at most 5 live → 409 cohost_limit",
                   security: "hostPin") { request throws(HTTPError) in
            try respond("cohost create") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let cohost = try service.createCohost(party: party)
                let url = Self.cohostURL(service: service, party: party, token: cohost.token)
                // The QR code travels with the link, as with a TV pairing: no route draws one for a token it is handed.
                let png = try QRCode(url).png(minimumPixels: 360)
                return .json(["url": .string(url), "token": .string(cohost.token), "id": .string(cohost.id),
                              "createdAt": .integer(Self.milliseconds(cohost.createdAt)),
                              "qr": .string("data:image/png;base64," + Data(png).base64EncodedString())], status: 201)
            }
        }
        router.add("GET", "/api/party/{id}/cohosts", summary: "The live co-host links, who joined first first (R34): {cohosts: [{id, createdAt, joinedAt}], limit}",
                   security: "hostPin") { request throws(HTTPError) in
            try respond("cohosts") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                // Handles only: the list never repeats a token (the host saw it once, when it made the link).
                let listed = try service.cohosts(of: party).map { cohost -> JSON in
                    .object([("id", .string(cohost.id)), ("createdAt", .integer(Self.milliseconds(cohost.createdAt))),
                             ("joinedAt", cohost.joinedAt.map { .integer(Self.milliseconds($0)) } ?? .null)])
                }
                return .json(["cohosts": .array(listed), "limit": .integer(Cohost.liveLimit)])
            }
        }
        router.add("DELETE", "/api/party/{id}/cohosts/{token}", summary: "Revoke one co-host link, by its id or its token (R34): 204",
                   security: "hostPin") { request throws(HTTPError) in
            try respond("cohost revoke") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let named = request.parameter("token")
                guard Cohost.isWellFormedHandle(named) || Identifiers.isWellFormedToken(named) else { throw PartyError.cohostNotFound }
                try service.revokeCohost(named, party: party)
                return .noContent
            }
        }
        router.add("DELETE", "/api/party/{id}/cohosts", summary: "Revoke every co-host link (R34): {revoked: n}", security: "hostPin") { request throws(HTTPError) in
            try respond("cohosts revoke") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                return .json(["revoked": .integer(try service.revokeAllCohosts(party: party))])
            }
        }
    }

    /// The co-host page with the party and the token in its fragment (never sent to the server or its logs).
    static func cohostURL(service: PartyService, party: Party, token: String) -> String {
        service.publicBase + "/cohost#party=" + party.id + "&cohost=" + token
    }

    static func milliseconds(_ date: Date) -> Int { Int(saturating: date.timeIntervalSince1970 * 1000) }
}
