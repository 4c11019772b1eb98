import Foundation
import Synchronization
import Testing

/// What a party lives on: its port is the front door (a server's, or nginx's in front of a cluster).
protocol PartyHost: AnyObject {
    var port: UInt16 { get }
}

extension ServerProcess: PartyHost {}

/// A demo party created through the API, with helpers that speak for its guests, host and monitor.
struct TestParty {
    /// The server the party lives on (one instance, or the cluster's nginx). The party holds it, so a party from
    /// `given()` keeps its server running as long as the test uses either (each process ends when it is released).
    let server: any PartyHost
    let client: HTTPClient
    let id: String
    let pin: String
    let hostPin: String
    let joinUrl: String
    /// Where the host created the party from: it proved the host PIN there.
    let creatorAddress: String

    /// Given a party: a server of its own (with `arguments`) and a party on it, in place of the preamble
    /// "start a server, stop it in defer, create a party".
    /// `settings` go into the creation body too (R9b, R17a: `fairQueue`, `vetoShare`).
    /// Under `.alsoOnRoundRobinCluster` the test runs again with its party on three instances behind round-robin nginx.
    static func given(provider: String = "demo", arguments: [String] = [], settings: [String: Any] = [:]) throws -> TestParty {
        GivenCalls.current?.record()
        switch Deployment.current {
        case .single:
            return try TestParty(ServerProcess(arguments: arguments), provider: provider, settings: settings)
        case .roundRobinCluster:
            return try TestParty(TestCluster(instances: 3, nginx: .roundRobin, arguments: arguments), provider: provider, settings: settings)
        }
    }

    init(_ server: any PartyHost, provider: String = "demo", settings: [String: Any] = [:]) throws {
        self.server = server
        client = HTTPClient(port: server.port)
        // Each test party is created by a host of its own (a loopback address and network of its own): creation
        // is throttled per address and network, and a test that makes many parties plays many hosts.
        creatorAddress = Self.nextHostAddress()
        let response = try client.from(creatorAddress).send("POST", "/api/party",
                                                            json: settings.merging(["provider": provider]) { _, new in new })
        guard response.status == 201 else { throw TestFailure(description: "create party: \(response.status) \(response.text)") }
        id = response.json["id"] as? String ?? ""
        pin = response.json["pin"] as? String ?? ""
        hostPin = response.json["hostPin"] as? String ?? ""
        joinUrl = response.json["joinUrl"] as? String ?? ""
    }

    var base: String { "/api/party/\(id)" }

    private static let counter = Mutex(0)

    static func nextHostAddress() -> String {
        let number = counter.withLock { value -> Int in
            value += 1
            return value
        }
        // A network (/24) of its own too: creation also counts per network.
        return "127.\(200 + number / 250 % 50).\(number % 250).1"
    }

    @discardableResult
    func add(_ number: Int, device: String = "guest-1") throws -> HTTPResponse {
        try client.send("POST", "\(base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    @discardableResult
    func vote(_ number: Int, device: String) throws -> HTTPResponse {
        try client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    /// The queue as the server answers it; throws on anything but a 200 with a queue, so a check that something is
    /// missing from it cannot pass on an error reply.
    func queue(device: String? = nil) throws -> [[String: Any]] {
        let response = try client.get("\(base)/track/queue" + (device.map { "?deviceId=\($0)" } ?? ""))
        guard response.status == 200, let queue = response.json["queue"] as? [[String: Any]] else {
            throw TestFailure(description: "queue: \(response)")
        }
        return queue
    }

    func queueUris() throws -> [String] { try queue().compactMap { $0["uri"] as? String } }

    func host(_ method: String, _ path: String, json: Any? = nil) throws -> HTTPResponse {
        try client.send(method, base + path, json: json, auth: hostPin)
    }

    /// Pairs a monitor with the host PIN; returns its token. It replaces a connected TV, as a host who was asked
    /// would say (`DeadTVTests` checks the question itself).
    func registerMonitor(device: String = "tv-1") throws -> String {
        let response = try host("PUT", "/device", json: ["deviceId": device, "kind": "monitor", "replace": true])
        guard response.status == 200, let token = response.json["monitorToken"] as? String else {
            throw TestFailure(description: "register monitor: \(response.status) \(response.text)")
        }
        return token
    }

    /// The playback state; throws on anything but a 200 with a JSON object.
    func current() throws -> [String: Any] {
        let response = try client.get("\(base)/track/current")
        guard response.status == 200, let object = response.jsonObject else { throw TestFailure(description: "current: \(response)") }
        return object
    }

    func events(monitorToken: String? = nil, lastEventId: Int? = nil, source: String = "127.0.0.1") throws -> SSEClient {
        var path = "/api/spotify/events?partyId=\(id)&source=web"
        if let monitorToken { path += "&monitorToken=\(monitorToken)" }
        return try SSEClient(port: client.port, path: path, lastEventId: lastEventId, source: source)
    }
}

