import Foundation
import Synchronization

extension ServerProcess: PartyHost {}

/// A demo party created through the API, with helpers that speak for its guests, host and monitor; on the
/// application in this process (the default) or on a live server.
package struct TestParty {
    /// The server the party lives on: in process, one instance of the binary, or the cluster's nginx. The party holds
    /// it, so a party from `given()` keeps its server as long as the test uses either (a process ends when released).
    package let server: any TestServer
    package let client: TestClient
    package let id: String
    package let pin: String
    package let hostPin: String
    package let joinUrl: String
    /// Where the host created the party from: it proved the host PIN there.
    package let creatorAddress: String

    /// Given a party: a server of its own and a party on it, in place of the preamble "start a server, stop it in
    /// defer, create a party". In process by default; `.live` starts the binary (with `arguments`). Under
    /// `.alsoOnRoundRobinCluster` either runs the test again with its party on three instances behind round-robin
    /// nginx, so a rule checked in process is checked where every request may land on another instance too (such a
    /// test must not reach for the in-process clock). `settings` go into the creation body too (R9b, R17a:
    /// `fairQueue`, `vetoShare`).
    package static func given(_ transport: Transport = .inProcess, provider: String = "demo", arguments: [String] = [],
                              settings: [String: Any] = [:]) throws -> TestParty {
        GivenCalls.current?.record()
        if Deployment.current == .roundRobinCluster {
            return try TestParty(TestCluster(instances: 3, nginx: .roundRobin, arguments: arguments), provider: provider,
                                 settings: settings)
        }
        switch transport {
        case .inProcess:
            precondition(arguments.isEmpty, "command-line arguments need a live server; in process, configure an InProcessServer")
            return try TestParty(InProcessServer(), provider: provider, settings: settings)
        case .live:
            return try TestParty(ServerProcess(arguments: arguments), provider: provider, settings: settings)
        }
    }

    package init(_ server: any TestServer, provider: String = "demo", settings: [String: Any] = [:]) throws {
        self.server = server
        client = TestClient(server: server)
        // Each test party is created by a host of its own (a loopback address and network of its own): creation
        // is throttled per address and network, and a test that makes many parties plays many hosts.
        creatorAddress = Self.nextHostAddress()
        let response = try client.from(creatorAddress).send("POST", "/api/party",
                                                            json: settings.merging(["provider": provider]) { _, new in new })
        guard response.status == 201 else { throw TestFailure(description: "create party: \(response)") }
        id = response.json["id"] as? String ?? ""
        pin = response.json["pin"] as? String ?? ""
        hostPin = response.json["hostPin"] as? String ?? ""
        joinUrl = response.json["joinUrl"] as? String ?? ""
    }

    /// A party created some other way, held by `server` and spoken to through `client`.
    package init(server: any TestServer, client: TestClient, id: String, pin: String, hostPin: String, joinUrl: String,
                 creatorAddress: String) {
        self.server = server
        self.client = client
        self.id = id
        self.pin = pin
        self.hostPin = hostPin
        self.joinUrl = joinUrl
        self.creatorAddress = creatorAddress
    }

    /// The same party on another server: the one that took over its data after a restart, another instance, nginx.
    package func on(_ server: any TestServer) -> TestParty {
        TestParty(server: server, client: TestClient(server: server), id: id, pin: pin, hostPin: hostPin, joinUrl: joinUrl,
                  creatorAddress: creatorAddress)
    }

    package var inProcessServer: InProcessServer {
        guard let server = server as? InProcessServer else { preconditionFailure("this party lives on a live server") }
        return server
    }

    /// The in-process server's clock (a live server keeps the system's).
    package var clock: ManualClock { inProcessServer.clock }

    package var base: String { "/api/party/\(id)" }

    private static let counter = Mutex(0)

    package static func nextHostAddress() -> String {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        // A network (/24) of its own too: creation also counts per network.
        return "127.\(200 + number / 250 % 50).\(number % 250).1"
    }

    @discardableResult
    package func add(_ number: Int, device: String = "guest-1") throws -> HTTPResponse {
        try client.send("POST", "\(base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    @discardableResult
    package func vote(_ number: Int, device: String) throws -> HTTPResponse {
        try client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    /// R17a: toggles `device`'s veto on the song.
    @discardableResult
    package func veto(_ number: Int, device: String) throws -> HTTPResponse {
        try client.send("POST", "\(base)/track/veto", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    /// The queue as the server answers it; throws on anything but a 200 with a queue, so a check that something is
    /// missing from it cannot pass on an error reply.
    package func queue(device: String? = nil) throws -> [[String: Any]] {
        let response = try client.get("\(base)/track/queue" + (device.map { "?deviceId=\($0)" } ?? ""))
        guard response.status == 200, let queue = response.json["queue"] as? [[String: Any]] else {
            throw TestFailure(description: "queue: \(response)")
        }
        return queue
    }

    /// The queue entry of a song (the waiting copy first, R10).
    package func entry(_ number: Int, device: String? = nil) throws -> [String: Any]? {
        let entries = try queue(device: device).filter { $0["uri"] as? String == "demo:track:\(number)" }
        return entries.first { $0["isCurrentlyPlaying"] as? Bool == false } ?? entries.first
    }

    package func queueUris() throws -> [String] { try queue().compactMap { $0["uri"] as? String } }

    package func host(_ method: String, _ path: String, json: Any? = nil) throws -> HTTPResponse {
        try client.send(method, base + path, json: json, auth: hostPin)
    }

    /// Pairs a monitor with the host PIN; returns its token. It replaces a connected TV, as a host who was asked
    /// would say (`DeadTVTests` checks the question itself).
    package func registerMonitor(device: String = "tv-1") throws -> String {
        let response = try host("PUT", "/device", json: ["deviceId": device, "kind": "monitor", "replace": true])
        guard response.status == 200, let token = response.json["monitorToken"] as? String else {
            throw TestFailure(description: "register monitor: \(response)")
        }
        return token
    }

    /// The playback state; throws on anything but a 200 with a JSON object.
    package func current() throws -> [String: Any] {
        let response = try client.get("\(base)/track/current")
        guard response.status == 200, let object = response.jsonObject else { throw TestFailure(description: "current: \(response)") }
        return object
    }

    /// The current entry's uri, nil when nothing is current.
    package func currentUri() throws -> String? { (try current()["track"] as? [String: Any])?["uri"] as? String }

    /// The party's event stream as the web pages open it.
    package func events(monitorToken: String? = nil, lastEventId: Int? = nil, source: String = "127.0.0.1") throws -> SSEClient {
        var path = "/api/spotify/events?partyId=\(id)&source=web"
        if let monitorToken { path += "&monitorToken=\(monitorToken)" }
        return try client.from(source).events(path, lastEventId: lastEventId)
    }
}
