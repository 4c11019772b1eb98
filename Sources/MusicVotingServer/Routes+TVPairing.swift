import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine
import Rendering

/// Ours: a TV pairs in one step. It opens a pairing and shows the code (and a QR code of the host
/// page that claims it); the host claims the code from a phone; the TV, polling with its secret, gets the
/// party and a monitor token and registers as usual (R21). The host-PIN way stays as the fallback.
extension Routes {
    func addTVPairingRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/tv/pairing", summary: "A TV opens a pairing: a code to show, a secret to poll with (ours)") { request throws(HTTPError) in
            try respond("tv pairing") {
                let pairing = try service.openTVPairing(clientAddress: request.clientAddress)
                let pairURL = Self.pairURL(service: service, code: pairing.code)
                // The QR code travels with the pairing: a route that drew it for any code told a
                // sweeper which codes wait.
                let png = try QRCode(pairURL).png(minimumPixels: 360)
                return .json(["code": .string(pairing.code), "secret": .string(pairing.secret),
                              "expiresIn": .integer(Int(TVPairings.lifetime)), "pairUrl": .string(pairURL),
                              "qr": .string("data:image/png;base64," + Data(png).base64EncodedString())], status: 201)
            }
        }
        router.add("GET", "/api/tv/pairing", summary: "The waiting TV asks whether it was paired (Bearer: its secret)") { request throws(HTTPError) in
            try respond("tv pairing") {
                guard let secret = request.bearerToken, Identifiers.isWellFormedToken(secret) else { throw PartyError.hostAuthorizationMissing }
                switch try service.tvPairingStatus(secret: secret) {
                case .unknown: throw PartyError.pairingNotFound
                case .waiting(let expiresAt):
                    return .json(["status": "waiting", "expiresIn": .integer(max(0, Int(expiresAt.timeIntervalSince(service.now))))])
                case .paired(let claim):
                    return .json(["status": "paired", "partyId": .string(claim.partyId), "monitorToken": .string(claim.monitorToken)])
                }
            }
        }
        router.add("POST", "/api/party/{id}/tv/pair", summary: "The host pairs the TV showing this code; `replace` swaps a connected TV (ours)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("tv pair") {
                let json = try request.json()
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                let code = (try request.stringField("code", in: json) ?? "").filter { !$0.isWhitespace }
                guard TVPairings.isWellFormed(code) else { throw PartyError.invalidInput("Invalid code: six digits") }
                let replace = json["replace"]?.boolValue ?? false
                try service.claimTVPairing(code: code, party: party, clientAddress: request.clientAddress, replace: replace)
                return .json(["paired": true])
            }
        }
    }

    /// The host page with the code in its fragment (never sent to the server or its logs).
    static func pairURL(service: PartyService, code: String) -> String { service.publicBase + "/host#pairTv=" + code }
}
