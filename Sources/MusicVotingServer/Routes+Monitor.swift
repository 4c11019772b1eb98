import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine

extension Routes {
    func addMonitorRoutes(to router: inout Router) {
        let service = self.service
        router.add("PUT", "/api/party/{id}/device", summary: "Register the monitor (R21, R22); `replace` swaps a connected TV (ours)", security: "monitorHostOrCohost") { request throws(HTTPError) in
            try respond("device") {
                let json = try request.json()
                let (party, caller) = try service.requireHostCohostOrMonitor(request, partyId: request.parameter("id"))
                guard let deviceId = try request.deviceId(from: json) else { throw PartyError.invalidInput("Missing deviceId") }
                let kind = try request.stringField("kind", in: json) ?? "monitor"
                guard kind == "monitor" else { throw PartyError.invalidInput("Invalid kind: must be 'monitor'") }
                // A second TV never silently takes over a connected one; its page asks and says `replace`.
                let replace = json["replace"]?.boolValue ?? false
                let token = try service.registerMonitor(deviceId: deviceId, caller: caller, party: party, clientAddress: request.clientAddress,
                                                        replace: replace)
                return .json(["deviceActive": .bool(service.deviceActive(party)), "monitorToken": .string(token)])
            }
        }
        router.add("DELETE", "/api/party/{id}/device", summary: "The monitor leaves (page hidden or closed; R20a)", security: "monitorOrHost") { request throws(HTTPError) in
            try respond("device") {
                let (party, _) = try service.requireHostOrMonitor(request, partyId: request.parameter("id"))
                service.monitorLeft(party)
                return .noContent
            }
        }
        router.add("POST", "/api/party/{id}/track/progress", summary: "Monitor progress report (R23, R20a)", security: "monitorOrHost") { request throws(HTTPError) in
            try respond("progress") {
                let json = try request.json()
                let (party, _) = try service.requireHostOrMonitor(request, partyId: request.parameter("id"))
                // As the original backend: a missing field is 0 / false, numbers may come as numeric strings.
                guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
                guard let position = Self.lenientMilliseconds(json["position"]), let duration = Self.lenientMilliseconds(json["duration"]),
                      let paused = Self.lenientFlag(json["paused"]) else {
                    throw PartyError.invalidInput("Invalid progress: needs position, duration (ms) and paused")
                }
                // R20a (ours): `blocked` when the browser refused to play, `error` when the provider's player failed.
                let blocked = json["blocked"]?.boolValue ?? false
                let error = try request.stringField("error", in: json).map { String($0.prefix(300)) }
                service.reportProgress(ProgressReport(positionMs: Int(position), durationMs: Int(duration), paused: paused,
                                                      blocked: blocked, error: error), party: party)
                return .noContent
            }
        }
        let openStream: Handler = { request throws(HTTPError) in
            try respond("events") {
                let partyId = request.parameters["id"] ?? request.query["partyId"] ?? ""
                let source = request.query["source"] == "ios" ? "ios" : "web"
                let installationId = try request.query["installationId"].map { id throws(PartyError) -> String in
                    guard Identifiers.isWellFormedDeviceId(id) else { throw PartyError.invalidInput("Invalid installationId") }
                    return id
                }
                // The party's sequence number to resume after; one that is no number is no id we gave out
                // (-1: the stream says `resync`).
                let lastEventId = (request.header("last-event-id") ?? request.query["lastEventId"]).flatMap { $0.isEmpty ? nil : Int64($0) ?? -1 }
                if partyId.isEmpty, source == "ios", let installationId {
                    return Self.eventStreamResponse(try service.openInstallationStream(
                        installationId: installationId, clientAddress: request.clientAddress) { EventStream(initial: $0) })
                }
                let party: Party
                do {
                    party = try service.activeParty(id: partyId)
                } catch PartyError.partyNotFound where Identifiers.isWellFormedToken(partyId) {
                    service.noteFutileStreamOpen(clientAddress: request.clientAddress)
                    return Self.eventStreamResponse(try service.openEndedPartyStream(partyId: partyId, clientAddress: request.clientAddress) {
                        EventStream(initial: $0)
                    })
                }
                // R24a: a wrong token counts like a wrong PIN; the stream is then a guest's. The host page sends its PIN
                // (`hostPin`; the access log never writes a query) so its stream may use the party's reserved slots.
                let caller = try (request.query["monitorToken"] ?? request.query["hostPin"]).flatMap {
                    try service.checkSecret($0, party: party, clientAddress: request.clientAddress, allowMonitor: true)
                }
                return Self.eventStreamResponse(try service.openEventStream(party: party, clientAddress: request.clientAddress,
                                                                            caller: caller, lastEventId: lastEventId,
                                                                            audience: Audience(source: source, installationId: installationId)) {
                    EventStream(initial: $0)
                })
            }
        }
        // A client that reopens its stream in a tight loop is answered after a pause (a timer, no thread waits).
        let events: Handler = { request throws(HTTPError) in
            let open: @Sendable () throws(HTTPError) -> Response = { () throws(HTTPError) -> Response in
                do throws(HTTPError) {
                    return try openStream(request)
                } catch {
                    service.noteFutileStreamOpen(clientAddress: request.clientAddress)
                    throw error
                }
            }
            let delay = service.streamOpenDelay(clientAddress: request.clientAddress)
            guard delay > 0 else { return try open() }
            return .deferred(after: delay) {
                do throws(HTTPError) { return try open() } catch { return Response(error: error) }
            }
        }
        router.add("GET", "/api/spotify/events", summary: "SSE stream (partyId, source, installationId)", events)
        router.add("GET", "/api/party/{id}/events", summary: "SSE stream (alias)", events)
    }

    /// A progress field in ms: absent or null is 0; a number or numeric string within 0…1e10; else nil (400).
    static func lenientMilliseconds(_ value: JSON?) -> Double? {
        let number: Double?
        switch value {
        case nil, .null?: number = 0
        case .number(let given)?: number = given
        case .string(let text)?: number = text.count <= 20 ? Double(text.trimmingCharacters(in: .whitespaces)) : nil
        default: number = nil
        }
        guard let number, number.isFinite, number >= 0, number < 1e10 else { return nil }
        return number.rounded(.down)
    }

    /// A progress flag: absent or null is false; a boolean or "true"/"false"; else nil (400).
    static func lenientFlag(_ value: JSON?) -> Bool? {
        switch value {
        case nil, .null?: return false
        case .bool(let flag)?: return flag
        case .string("true")?: return true
        case .string("false")?: return false
        default: return nil
        }
    }

    static func eventStreamResponse(_ stream: EventStream) -> Response {
        Response(status: 200, headers: [
            ("Content-Type", "text/event-stream; charset=utf-8"), ("Cache-Control", "no-cache"), ("X-Accel-Buffering", "no"),
        ], body: .stream(stream))
    }
}
