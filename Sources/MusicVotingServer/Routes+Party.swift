import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine
import Rendering

extension Routes {
    func addPartyRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/party", summary: "Create a party (R1–R4): {provider, fairQueue?: bool, vetoShare?: number 0…1, history?: bool, approval?: off|new-guests|all, nicknames?: bool} (R9b, R17a, R33, R35, R36; defaults false, 0, false, off, false)") { request throws(HTTPError) in
            try respond("create party") {
                let json = try request.optionalJSON()
                let provider = try request.stringField("provider", in: json)
                let settings = try PartySettings.reading(json, over: .apiDefault)
                let party = try service.createParty(provider: provider, settings: settings, clientAddress: request.clientAddress)
                return .json(["id": .string(party.id), "pin": .string(party.guestPin), "hostPin": .string(party.hostPin),
                              "hostToken": .optional(party.hostToken), "joinUrl": .string(service.joinURL(for: party))], status: 201)
            }
        }
        router.add("GET", "/api/party/join/{pin}", summary: "Find a party by guest PIN (R27); deviceId (query or X-Device-Id) counts the guest as active (R17a)") { request throws(HTTPError) in
            try respond("join") {
                // R17a: a guest page says who it is (`?deviceId=`): it counts as active from now.
                let party = try service.joinParty(guestPin: request.parameter("pin"), clientAddress: request.clientAddress,
                                                  deviceId: try request.deviceId(from: nil))
                return .json(["id": .string(party.id)])
            }
        }
        router.add("GET", "/api/party/host-join/{hostPin}", summary: "Find a party by host PIN (R24, R24a); hostToken: the host page's credential") { request throws(HTTPError) in
            try respond("host join") {
                let party = try service.hostJoin(hostPin: request.parameter("hostPin"), clientAddress: request.clientAddress)
                return .json(["id": .string(party.id), "guestPin": .string(party.guestPin), "hostToken": .optional(party.hostToken)])
            }
        }
        router.add("GET", "/api/party/{id}", summary: "Party details; hostPin and hostToken only with the host PIN or token (R25); a co-host's token adds role: cohost and its cohostId, never a PIN (R34)") { request throws(HTTPError) in
            try respond("party") {
                let party = try service.activeParty(id: request.parameter("id"))
                var fields: [(String, JSON)] = [("id", .string(party.id)), ("pin", .string(party.guestPin)),
                                                ("provider", .string(party.provider)), ("joinUrl", .string(service.joinURL(for: party)))]
                switch try service.access(Credential(request), party: party) {
                case .host(let hosted): fields += [("hostPin", .string(hosted.hostPin)), ("hostToken", .optional(hosted.hostToken))]
                case .cohost(let cohost): fields += [("role", "cohost"), ("cohostId", .string(cohost.id))]
                case .guest: break
                }
                return .json(.object(fields))
            }
        }
        router.add("POST", "/api/party/{id}/host-pin", summary: "Replace the host PIN and host token (R24a); the TV stays paired", security: "hostPin") { request throws(HTTPError) in
            try respond("rotate host pin") {
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let rotated = try service.rotateHostPin(of: party, clientAddress: request.clientAddress)
                return .json(["hostPin": .string(rotated.hostPin), "hostToken": .optional(rotated.hostToken)])
            }
        }
        router.add("POST", "/api/party/{id}/host-recovery", summary: "Redeem a console link (musicvoting host-link) for a new host PIN and token (R24a): {token}") { request throws(HTTPError) in
            try respond("host recovery") {
                let json = try request.json()
                let token = try request.stringField("token", in: json) ?? ""
                let party = try service.redeemHostRecovery(token: token, partyId: request.parameter("id"), clientAddress: request.clientAddress)
                return .json(["id": .string(party.id), "hostPin": .string(party.hostPin), "hostToken": .optional(party.hostToken)])
            }
        }
        router.add("DELETE", "/api/party/{id}", summary: "End the party (R5)", security: "hostPin") { request throws(HTTPError) in
            try respond("end party") {
                try service.end(try service.requireHost(request, partyId: request.parameter("id")))
                return .noContent
            }
        }
        router.add("GET", "/api/party/{id}/qr", summary: "QR PNG of the join URL (R4)") { request throws(HTTPError) in
            try respond("qr") {
                let party = try service.activeParty(id: request.parameter("id"))
                let png = try QRCode(service.joinURL(for: party)).png(minimumPixels: 360)
                return StaticContent(bytes: png, contentType: "image/png").response(to: request)
            }
        }
        router.add("PUT", "/api/party/{id}/default-playlist", summary: "Set or clear the refill playlist (R15)", security: "hostPin") { request throws(HTTPError) in
            try respond("default playlist") {
                let json = try request.json()
                let party = try service.requireHost(request, partyId: request.parameter("id"))
                let raw = try request.stringField("playlistId", in: json)?.trimmingCharacters(in: .whitespaces) ?? ""
                guard raw.utf8.count <= 200 else { throw PartyError.invalidInput("Invalid playlistId") }
                let playlistId = raw.isEmpty ? nil : raw
                try service.setDefaultPlaylist(playlistId, party: party)
                return .json(["defaultPlaylistId": .optional(playlistId)])
            }
        }
        router.add("GET", "/api/party/{id}/blacklist", summary: "Blacklist words (R12)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("blacklist") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return .json(["words": .array(try service.blacklist(of: party).words.map(JSON.string))])
            }
        }
        router.add("PUT", "/api/party/{id}/blacklist", summary: "Add a blacklist word", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("blacklist add") {
                let json = try request.json()
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                try service.addBlacklistWord(try request.stringField("word", in: json) ?? "", party: party)
                let blacklist = try service.blacklist(of: party)
                // The waiting songs the list now blocks, by the server's one rule, so the host page can offer to remove them.
                let matching = try service.queue(of: party).waitingUris(blockedBy: blacklist)
                return .json(["words": .array(blacklist.words.map(JSON.string)), "matching": .array(matching.map(JSON.string))])
            }
        }
        router.add("DELETE", "/api/party/{id}/blacklist", summary: "Remove a blacklist word", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("blacklist remove") {
                let json = try request.optionalJSON()
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                let word = try request.stringField("word", in: json) ?? request.query["word"] ?? ""
                try service.removeBlacklistWord(word, party: party)
                return .json(["words": .array(try service.blacklist(of: party).words.map(JSON.string))])
            }
        }
    }
}
