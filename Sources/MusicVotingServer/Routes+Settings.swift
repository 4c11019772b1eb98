import HTTPServer
import JSONKit
import PartyCore

extension Routes {
    /// R9b, R17a, R33, R35, R36: the party's settings; anyone may read them (pages show the rules), only the host changes them.
    func addSettingsRoutes(to router: inout Router) {
        let service = self.service
        router.add("GET", "/api/party/{id}/settings", summary: "The party's settings {fairQueue, vetoShare, history, approval, nicknames} (R9b, R17a, R33, R35, R36)") { request throws(HTTPError) in
            try respond("settings") {
                .json(try service.activeParty(id: request.parameter("id")).settings.json)
            }
        }
        router.add("PUT", "/api/party/{id}/settings",
                   summary: "Change settings: {fairQueue: bool, vetoShare: number 0…1, history: bool, approval: off|new-guests|all, nicknames: bool}, fields left out keep their value; answers the settings (R9b, R17a, R33, R35, R36)",
                   security: "hostPin") { request throws(HTTPError) in
            try respond("settings") {
                let json = try request.json()
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let settings = try PartySettings.reading(json, over: party.settings)
                try service.updateSettings(settings, party: party)
                return .json(settings.json)
            }
        }
    }
}
