import Foundation
import HTTPServer
@testable import MusicVotingServer

/// The real application (routes, party service, SQLite store in a folder of its own, demo provider) in this
/// process, answering `Request` values through the pipeline the HTTP server uses, with no socket. Time is
/// the injected `clock`.
final class TestServer {
    /// The public address parties name in their join URLs, as `--public-url` would set it.
    static let publicURL = "http://party.test:8080"
    let application: Application
    let clock: ManualClock
    let dataDirectory: String
    /// Whether this server removes the folder when it goes (a restarted one takes it over from the stopped one).
    private var ownsDataDirectory: Bool

    init(clock: ManualClock = ManualClock(), configure: (inout Configuration) -> Void = { _ in }) throws {
        var configuration = Configuration()
        dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-contract-\(UUID().uuidString)").path
        ownsDataDirectory = true
        configuration.dataDirectory = dataDirectory
        configuration.publicURL = Self.publicURL
        configure(&configuration)
        self.clock = clock
        application = try Application(configuration: configuration, clock: clock)
        // What `Application.start` does once it listens.
        application.service.setJoinBase(configuration.publicURL ?? Self.publicURL)
    }

    /// The server again after `stopped` stopped, on its folder or database and clock, as after a restart.
    init(restarting stopped: TestServer) throws {
        clock = stopped.clock
        dataDirectory = stopped.dataDirectory
        ownsDataDirectory = stopped.ownsDataDirectory
        stopped.ownsDataDirectory = false
        application = try Application(configuration: stopped.application.configuration, clock: clock)
        application.service.setJoinBase(application.configuration.publicURL ?? Self.publicURL)
    }

    deinit {
        // The doorbell's thread holds the application and a PostgreSQL session: without this, every server on the
        // shared database would keep its sessions until the test process ends.
        application.closeSessions()
        if ownsDataDirectory { try? FileManager.default.removeItem(atPath: dataDirectory) }
    }

    var client: TestClient { TestClient(server: self) }

    func respond(to request: Request) throws -> Reply { try Reply(application.pipeline.respond(to: request)) }
}

/// Requests as a phone on the party Wi-Fi sends them; `source` is the client address the limits key on.
struct TestClient {
    let server: TestServer
    var source = "127.0.0.1"

    /// The same client speaking from another address.
    func from(_ source: String) -> TestClient { TestClient(server: server, source: source) }

    /// `path` may carry a query; its arguments are URL-decoded, as libmicrohttpd hands them over.
    func request(_ method: String, _ path: String, body: [UInt8] = [], headers: [String: String] = [:]) throws -> Reply {
        let parts = path.split(separator: "?", maxSplits: 1, omittingEmptySubsequences: false)
        var query: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: "&") {
                let keyValue = pair.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
                let decode = { (text: Substring) in String(text).removingPercentEncoding ?? String(text) }
                query[decode(keyValue[0])] = keyValue.count == 2 ? decode(keyValue[1]) : ""
            }
        }
        let lowercased = Dictionary(headers.map { ($0.key.lowercased(), $0.value) }) { _, last in last }
        return try server.respond(to: Request(method: method, path: String(parts[0]), query: query, headers: lowercased,
                                              body: body, clientAddress: source))
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> Reply {
        try request("GET", path, headers: headers)
    }

    /// A JSON body (`json`, any JSONSerialization value) or raw text; `auth` becomes `Authorization: Bearer`.
    func send(_ method: String, _ path: String, json: Any? = nil, raw: String? = nil, auth: String? = nil,
              headers: [String: String] = [:]) throws -> Reply {
        var all = headers
        if let auth { all["Authorization"] = "Bearer \(auth)" }
        var body: [UInt8] = []
        if let json {
            body = [UInt8](try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
            all["Content-Type"] = "application/json"
        } else if let raw {
            body = Array(raw.utf8)
        }
        return try request(method, path, body: body, headers: all)
    }
}
