import Foundation
import HTTPServer
import JSONKit
import PartyCore
import PartyEngine
import Providers
import Rendering

/// The HTTP API of SPEC.md, as route registrations on one router.
struct Routes: Sendable {
    let service: PartyService
    let readiness: Readiness
    let publicFiles: StaticFiles
    let library: LocalLibrary?
    let pages: PageRenderer

    func router() -> Router {
        var router = Router()
        addPartyRoutes(to: &router)
        addSettingsRoutes(to: &router)
        addTrackRoutes(to: &router)
        addCrowdRoutes(to: &router)
        addPlaylistRoutes(to: &router)
        addHistoryRoutes(to: &router)
        addPendingRoutes(to: &router)
        addNicknameRoutes(to: &router)
        addCohostRoutes(to: &router)
        addPlaybackRoutes(to: &router)
        addMonitorRoutes(to: &router)
        addTVPairingRoutes(to: &router)
        addProviderRoutes(to: &router)
        addAssetRoutes(to: &router)
        addPageRoutes(to: &router, pages: pages)
        let document = router.openAPI(title: "MusicVoting", version: "1.0", securitySchemes: [
            ("hostPin", "Authorization: Bearer <hostPin>"),
            ("monitorOrHost", "Authorization: Bearer <monitorToken or hostPin>"),
            ("hostOrCohost", "Authorization: Bearer <hostPin or a co-host token> (R34)"),
            ("monitorHostOrCohost", "Authorization: Bearer <monitorToken, hostPin or a co-host token> (R21, R34)"),
        ])
        router.add("GET", "/api/openapi.json", summary: "This OpenAPI document") { _ in .json(document) }
        // With several instances, also whether this one runs the party upkeep (exactly one does).
        router.add("GET", "/healthz", summary: "Liveness") { [service] _ in
            // Several instances: whether this one runs the upkeep, and which parties' timers (shards).
            var fields: [(String, JSON)] = [("status", "ok")]
            if let upkeep = service.runsUpkeep { fields.append(("upkeep", .bool(upkeep))) }
            if let shards = service.timerShards { fields.append(("timerShards", .array(shards.map { .integer($0) }))) }
            return .json(.object(fields))
        }
        router.add("GET", "/readyz", summary: "Readiness: 503 before start-up finished, while draining, while the database takes no write") {
            [readiness] _ in
            guard let reason = readiness.reasonNotReady() else { return .json(["status": "ready"]) }
            // Not an error answer (no code): a load balancer asks every few seconds, no refusal to count.
            return .json(.object([("status", "not ready"), ("reason", .string(reason))]), status: 503)
        }
        router.unknownHostPage = { [pages, service] request, host in
            var response = pages.render("unknown-host", for: request, title: "unknownHost.title",
                                        data: ["host": .string(String(host.prefix(255))), "address": .string(service.publicBase)])
            response.status = 421
            return response
        }
        router.notFoundPage = { [pages] request in
            var response = pages.render("not-found", for: request, title: "notFound.title")
            response.status = 404
            return response
        }
        return router
    }
}

/// Runs a handler body, turning every thrown error into the one HTTP error rendering.
func respond(_ context: String, _ body: () throws -> Response) throws(HTTPError) -> Response {
    do { return try body() } catch { throw ErrorMapping.httpError(error, context: context) }
}

/// Like `respond`, but off libmicrohttpd's threads when `provider` is remote (its calls can take seconds),
/// through `gate`, which answers 503 at once when the provider already has all the calls it may.
func respond(_ context: String, calling provider: any MusicProvider, gate: RemoteCallGate, guest: String? = nil,
             admit: () throws -> Void = {}, _ body: @escaping @Sendable () throws -> Response) -> Response {
    let run: @Sendable () -> Response = {
        do { return try body() } catch { return Response(error: ErrorMapping.httpError(error, context: context)) }
    }
    guard provider.isRemote else { return run() }
    // The slot first, then the budget: a call refused as busy costs the guest nothing.
    guard let slot = gate.enter(provider.name, client: guest) else { return Response(error: ErrorMapping.httpError(ProviderError.busy)) }
    do { try admit() } catch {
        gate.leave(slot)
        return Response(error: ErrorMapping.httpError(error, context: context))
    }
    return .deferred {
        defer { gate.leave(slot) }
        return run()
    }
}

extension Request {
    /// A string field of the JSON body; 400 with `message` when the body is not an object or the field has another type.
    func stringField(_ name: String, in json: JSON?) throws -> String? {
        guard let json else { return nil }
        guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
        guard let value = json[name], value != .null else { return nil }
        guard let text = value.stringValue else { throw PartyError.invalidInput("Invalid \(name)") }
        return text
    }

    /// A boolean field of a JSON object body, nil when absent or null; anything else than true or false is a 400.
    func boolField(_ name: String, in json: JSON?) throws -> Bool? {
        guard let json else { return nil }
        guard case .object = json else { throw PartyError.invalidInput("Invalid JSON body") }
        guard let value = json[name], value != .null else { return nil }
        guard case .bool(let flag) = value else { throw PartyError.invalidInput("Invalid \(name)") }
        return flag
    }

    /// The guest's device id: body, then `X-Device-Id`, then `?deviceId=`.
    func deviceId(from json: JSON?) throws -> String? {
        let candidate = try stringField("deviceId", in: json) ?? header("x-device-id") ?? query["deviceId"]
        guard let candidate, !candidate.isEmpty else { return nil }
        guard Identifiers.isWellFormedDeviceId(candidate) else { throw PartyError.invalidInput("Invalid deviceId") }
        return candidate
    }
}
