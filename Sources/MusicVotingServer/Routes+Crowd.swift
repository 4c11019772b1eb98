import HTTPServer
import JSONKit
import PartyCore

extension Routes {
    /// R17a's crowd veto and R30's ban without unmasking.
    func addCrowdRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/party/{id}/track/veto",
                   summary: "Toggle this device's veto {uri, deviceId} → {vetoed, vetoCount, vetoNeeded}; at vetoNeeded the current song is skipped like a host next, a waiting one removed; 403 own song or banned, 409 veto_off while vetoShare is 0 (R17a)") { request throws(HTTPError) in
            try respond("veto") {
                let json = try request.json()
                let party = try service.activeParty(id: request.parameter("id"))
                guard let uri = try request.stringField("uri", in: json), !uri.isEmpty,
                      let device = try request.deviceId(from: json) else { throw PartyError.missingUriOrDevice }
                // The skip may refill the queue from the provider: off the server's threads when it is remote.
                return respond("veto", calling: try service.provider(for: party), gate: service.remoteCalls) {
                    let outcome = try service.veto(uri: uri, deviceId: device, clientAddress: request.clientAddress, party: party)
                    return .json(["vetoed": .bool(outcome.vetoed), "vetoCount": .integer(outcome.vetoCount),
                                  "vetoNeeded": .integer(outcome.vetoNeeded)])
                }
            }
        }
        router.add("POST", "/api/party/{id}/ban",
                   summary: "Ban whoever added the entry {entryId} without naming them: their waiting songs leave, their adds, likes and vetoes answer 403 → {removed} (R30)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("ban") {
                let json = try request.json()
                let entryId = try Self.entryId(in: json)
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return .json(["removed": .integer(try service.ban(entryId: entryId, party: party))])
            }
        }
        router.add("DELETE", "/api/party/{id}/bans", summary: "Lift every ban of the party (R30) → {lifted: true}", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("bans") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                try service.liftBans(party: party)
                return .json(["lifted": .bool(true)])
            }
        }
    }

    /// R30: the entry id a ban names, as the queue gives it (a string) or as a number; bounded (R24b).
    static func entryId(in json: JSON) throws -> Int64 {
        guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
        guard let value = json["entryId"], value != .null else { throw PartyError.invalidInput("Missing entryId") }
        let text = value.stringValue ?? value.numberValue.map { $0.rounded() == $0 ? String(Int(saturating: $0)) : "" } ?? ""
        guard let id = Int(boundedDigits: text, in: 1...Int(Int64.max), maxDigits: 18) else { throw PartyError.invalidInput("Invalid entryId") }
        return Int64(id)
    }
}
