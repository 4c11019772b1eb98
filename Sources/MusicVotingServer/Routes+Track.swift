import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine

extension Routes {
    func addTrackRoutes(to router: inout Router) {
        let service = self.service
        router.add("GET", "/api/party/{id}/track/search", summary: "Search the party's provider; empty q → top 10") { request throws(HTTPError) in
            try respond("search") {
                let party = try service.activeParty(id: request.parameter("id"))
                let query = String((request.query["q"] ?? "").prefix(200))
                let provider = try service.provider(for: party)
                // Ours: a result the blacklist refuses says so (`blocked`), so a page offers no "+" for it (R12).
                let blacklist = try service.blacklist(of: party)
                @Sendable func answer(_ tracks: [Track]) -> Response {
                    .json(["tracks": ["items": .array(tracks.map { track in
                        var members = TrackJSON.members(track, base: service.publicBase)
                        if blacklist.blocks(track) { members.append(("blocked", .bool(true))) }
                        return .object(members)
                    })]])
                }
                // A cache hit is answered at once, on this thread, and costs no quota; a miss counts.
                if provider.isRemote, let cached = provider.cachedSearch(query) { return answer(cached) }
                return respond("search", calling: provider, gate: service.remoteCalls, guest: request.clientAddress, admit: {
                    try service.admitRemoteSearch(party: party, clientAddress: request.clientAddress)
                }) {
                    let tracks = try provider.search(query)
                    // An add of what a guest just saw costs no look-up.
                    if provider.isRemote { service.trackLookups.remember(found: tracks, provider: provider.name, at: service.now) }
                    return answer(tracks)
                }
            }
        }
        router.add("GET", "/api/party/{id}/track/queue",
                   summary: "The queue in R9/R9b order; each entry has startsInMs (R18a); with deviceId, hasVoted (R18), mine: true on the device's own entries and the device's budget {addsLeft, nextAddInMs} (R18b), and its songs waiting for approval as pending: [{id, uri, name, …, requestedAt}] while it has any (R35); while nicknames are on, addedBy on entries whose adder chose one, and the device's own nickname (R36); while vetoShare > 0, vetoCount and vetoNeeded (+ hasVetoed with deviceId) (R17a)") { request throws(HTTPError) in
            try respond("queue") {
                let party = try service.activeParty(id: request.parameter("id"))
                let deviceId = try request.deviceId(from: nil)
                let bytes = try service.renderedQueue(of: party, deviceId: deviceId) { view in
                    let starts = view.queue.startTimes(view.ordered, currentPositionMs: view.currentPositionMs)
                    var members: [(String, JSON)] = [("queue", .array(zip(view.ordered, starts).map { entry, startsInMs in
                        TrackJSON.entry(entry, currentEntryId: view.queue.currentEntryId, liked: view.liked, base: service.publicBase,
                                        startsInMs: startsInMs, mine: deviceId != nil && entry.addedBy == deviceId, veto: view.veto,
                                        addedBy: entry.autofilled ? nil : view.nicknames?[entry.addedBy])
                    }))]
                    if let budget = view.budget {
                        members.append(("budget", ["addsLeft": .integer(budget.addsLeft), "nextAddInMs": .integer(budget.nextAddInMs)]))
                    }
                    // R36: the device's own nickname, while the party shows nicknames and it has one.
                    if let deviceId, let nickname = view.nicknames?[deviceId] { members.append(("nickname", .string(nickname))) }
                    // R35: only where the device has songs waiting (the older clients see the shape they always saw).
                    if let pending = view.pending, !pending.isEmpty {
                        members.append(("pending", .array(pending.map { Self.pendingSongJSON($0, base: service.publicBase) })))
                    }
                    return JSON.object(members).bytes
                }
                return .bytes(bytes, contentType: "application/json; charset=utf-8")
            }
        }
        router.add("GET", "/api/party/{id}/track/current", summary: "Playback state (R19, R21)") { request throws(HTTPError) in
            try respond("current") {
                let party = try service.activeParty(id: request.parameter("id"))
                let (playback, state, stallReason) = try service.playbackState(of: party)
                let queue = try service.queue(of: party)
                let now = service.now
                var fields: [(String, JSON)] = [
                    ("isPlaying", .bool(state == .playing)), ("state", .string(state.rawValue)),
                    ("stallReason", stallReason.map { .string($0.rawValue) } ?? .null),
                    ("progressMs", .integer(playback.positionMs(at: now))),
                ]
                if let startedAt = playback.startedAt {
                    fields.append(("playbackStartedAt", .integer(Int(startedAt.timeIntervalSince1970 * 1000))))
                }
                fields.append(("serverTime", .integer(Int(now.timeIntervalSince1970 * 1000))))
                fields.append(("deviceActive", .bool(service.deviceActive(party))))
                // R20a: a TV away is either paired (it comes back by itself) or was never paired (the host pairs one).
                if stallReason == .noMonitor { fields.append(("tvPaired", .bool(try service.tvPaired(party)))) }
                if let current = queue.current {
                    let addedBy = party.settings.nicknames && !current.autofilled ? try service.nicknames(of: party)[current.addedBy] : nil
                    fields.append(("track", TrackJSON.entry(current, currentEntryId: current.id, liked: nil, base: service.publicBase,
                                                            addedBy: addedBy)))
                }
                return .json(.object(fields))
            }
        }
        router.add("GET", "/api/party/{id}/track/{trackId}", summary: "One track of the provider") { request throws(HTTPError) in
            try respond("track") {
                let party = try service.activeParty(id: request.parameter("id"))
                let provider = try service.provider(for: party)
                let uri = provider.uri(forTrackId: request.parameter("trackId"))
                let known = provider.isRemote ? service.trackLookups.answer(provider: provider.name, uri: uri, at: service.now) : nil
                return respond("track", calling: provider, gate: service.remoteCalls, guest: request.clientAddress, admit: {
                    if known == nil { try service.admitRemoteSearch(party: party, clientAddress: request.clientAddress) }
                }) {
                    let found = try known ?? provider.track(uri: uri)
                    if provider.isRemote, known == nil { service.trackLookups.remember(found, provider: provider.name, uri: uri, at: service.now) }
                    guard let track = found else { throw PartyError.trackNotFound }
                    return .json(TrackJSON.track(track, base: service.publicBase))
                }
            }
        }
        router.add("POST", "/api/party/{id}/track/addToPlaylist",
                   summary: "Add songs by uri (R10–R13, R16); where the party's approval holds the guest's adds, 200 {status: pending, pendingIds} (R35); the host's and co-hosts' adds (their Bearer) never wait") { request throws(HTTPError) in
            try respond("add") {
                let json = try request.json()
                let party = try service.activeParty(id: request.parameter("id"))
                let uris: [String]
                switch json {
                case .array(let items):
                    uris = try items.map { item in
                        guard let uri = item.stringValue else { throw PartyError.invalidUri }
                        return uri
                    }
                case .object:
                    uris = try request.stringField("uri", in: json).map { [$0] } ?? []
                default:
                    throw PartyError.invalidInput("Invalid JSON body")
                }
                let device = try request.deviceId(from: { if case .object = json { return json } else { return nil } }())
                // R35: the host's and co-hosts' pages add with their credential, and their songs never wait (they decide
                // the waiting ones); a wrong one counts (R24a) and the add goes on as a guest's.
                let byHost: Bool
                switch try request.header("authorization") == nil ? .guest : service.access(Credential(request), party: party) {
                case .host, .cohost: byHost = true
                case .guest: byHost = false
                }
                return respond("add", calling: try service.provider(for: party), gate: service.remoteCalls, guest: request.clientAddress) {
                    let pending = try service.add(uris: uris, deviceId: device, clientAddress: request.clientAddress, party: party, byHost: byHost)
                    if pending.isEmpty { return .json(["status": "added"]) }
                    return .json(["status": "pending", "pendingIds": .array(pending.map { .string(String($0)) })])
                }
            }
        }
        router.add("POST", "/api/party/{id}/track/vote", summary: "Toggle this device's like (R17); with liked: true or false, set it (safe to repeat after a 503)") { request throws(HTTPError) in
            try respond("vote") {
                let json = try request.json()
                let partyId = request.parameter("id")
                guard let uri = try request.stringField("uri", in: json), !uri.isEmpty,
                      let device = try request.deviceId(from: json) else { throw PartyError.missingUriOrDevice }
                let wanted = try request.boolField("liked", in: json)
                // Answered after the group commit that holds the like (and finds the party: 404 from there);
                // this thread goes on reading meanwhile.
                let clientAddress = request.clientAddress
                return .completing { finish in
                    service.vote(uri: uri, deviceId: device, wanted: wanted, clientAddress: clientAddress, partyId: partyId) { result in
                        finish {
                            switch result {
                            case .success(let result): .json(["liked": .bool(result.liked), "likeCount": .integer(result.likeCount)])
                            case .failure(let error): Response(error: ErrorMapping.httpError(error, context: "vote"))
                            }
                        }
                    }
                }
            }
        }
        router.add("DELETE", "/api/party/{id}/track/remove",
                   summary: "Remove a song (host); without a PIN, {uri, deviceId} removes the device's own waiting song (R18b)",
                   security: "hostOrCohost") { request throws(HTTPError) in
            try respond("remove") {
                let json = try request.optionalJSON()
                let uri = try request.stringField("uri", in: json) ?? request.query["uri"]
                // R18b: a guest (no Authorization, a device id) takes back its own song; everything else is the host's.
                if request.header("authorization") == nil, let device = try request.deviceId(from: json) {
                    let party = try service.activeParty(id: request.parameter("id"))
                    guard let uri, !uri.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { throw PartyError.missingUri }
                    try service.removeOwn(uri: uri, deviceId: device, party: party)
                    return .json(["status": "removed"])
                }
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                guard let uri, !uri.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else {
                    throw PartyError.missingUri
                }
                return respond("remove", calling: try service.provider(for: party), gate: service.remoteCalls) {
                    try service.remove(uri: uri, party: party)
                    return .json(["status": "removed"])
                }
            }
        }
    }
}
