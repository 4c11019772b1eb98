import Foundation
import HTTPServer
import JSONKit
import PartyCore

extension Routes {
    /// R36: a guest names itself, where the party shows nicknames.
    func addNicknameRoutes(to router: inout Router) {
        let service = self.service
        router.add("PUT", "/api/party/{id}/nickname",
                   summary: "Set this device's nickname {deviceId, nickname} (1–24 characters; null clears it) → {nickname}; 400 invalid_nickname, 403 nickname_not_allowed (blacklist), 409 nickname_taken, 409 nicknames_off (R36)") { request throws(HTTPError) in
            try respond("nickname") {
                let json = try request.json()
                guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
                guard let device = try request.deviceId(from: json) else { throw PartyError.invalidInput("Missing deviceId") }
                let raw: String?
                switch json["nickname"] {
                case .string(let text)?: raw = text
                case .null?: raw = nil
                default: throw PartyError.invalidNickname
                }
                let party = try service.activeParty(id: request.parameter("id"))
                let nickname = try service.setNickname(raw, deviceId: device, clientAddress: request.clientAddress, party: party)
                return .json(["nickname": nickname.map { .string($0.text) } ?? .null])
            }
        }
    }
}
