import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine

extension Routes {
    func addPlaybackRoutes(to router: inout Router) {
        let service = self.service
        router.add("POST", "/api/party/{id}/track/start", summary: "Play the first entry (R20)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("start") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return respond("start", calling: try service.provider(for: party), gate: service.remoteCalls) { Self.outcome(try service.start(party), base: service.publicBase) }
            }
        }
        router.add("POST", "/api/party/{id}/track/next", summary: "Skip, or the monitor's song end with {entryId} (R14, R20)",
                   security: "monitorHostOrCohost") { request throws(HTTPError) in
            try respond("next") {
                let json = try request.optionalJSON()
                let (party, caller) = try service.requireHostCohostOrMonitor(request, partyId: request.parameter("id"))
                let advance = try Self.advanceRequest(caller: caller, entryId: json?["entryId"])
                return respond("next", calling: try service.provider(for: party), gate: service.remoteCalls) {
                    Self.outcome(try service.next(party, request: advance), base: service.publicBase)
                }
            }
        }
        router.add("POST", "/api/party/{id}/track/pause", summary: "Pause (R19)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("pause") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return Self.state(try service.pause(party), service: service)
            }
        }
        router.add("POST", "/api/party/{id}/track/resume", summary: "Resume at the paused position (R19)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("resume") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return Self.state(try service.resume(party), service: service)
            }
        }
        router.add("PUT", "/api/party/{id}/track/play", summary: "Play a queued uri now", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("play") {
                let json = try request.json()
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                guard let uri = try request.stringField("uri", in: json), !uri.isEmpty else { throw PartyError.missingUri }
                let entry = try service.play(uri: uri, party: party)
                return .json(["status": "playing", "track": TrackJSON.entry(entry, currentEntryId: entry.id, liked: nil, base: service.publicBase)])
            }
        }
        router.add("POST", "/api/party/{id}/track/prepare-next", summary: "Run the refill (R15)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("prepare next") {
                let party = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                return respond("prepare next", calling: try service.provider(for: party), gate: service.remoteCalls) {
                    try service.refillIfDry(party)
                    return .noContent
                }
            }
        }
    }

    /// R20: the host always skips; the monitor's song end names the entry it finished (a string or number
    /// id, bounded), or, from older players, nothing.
    static func advanceRequest(caller: Caller, entryId: JSON?) throws -> AdvanceRequest {
        guard caller == .monitor else { return .host }
        guard let entryId, entryId != .null else { return .songEndedWithoutEntry }
        let text = entryId.stringValue ?? entryId.numberValue.map { $0.rounded() == $0 ? String(Int(saturating: $0)) : "" } ?? ""
        guard let id = Int(boundedDigits: text, in: 1...Int(Int64.max), maxDigits: 18) else {
            throw PartyError.invalidInput("Invalid entryId")
        }
        return .songEnded(entryId: Int64(id))
    }

    static func outcome(_ outcome: PlayOutcome, base: String) -> Response {
        switch outcome {
        case .playing(let entry):
            return .json(["status": "playing", "track": TrackJSON.entry(entry, currentEntryId: entry.id, liked: nil, base: base)])
        case .empty:
            return .json(["status": "empty", "message": "Warteschlange ist leer"])
        }
    }

    static func state(_ playback: Playback, service: PartyService) -> Response {
        .json(["isPlaying": .bool(playback.isPlaying), "progressMs": .integer(playback.positionMs(at: service.now))])
    }
}
