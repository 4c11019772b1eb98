import Foundation
import Synchronization

/// Given a party: a demo party created through the API on an in-process server, with helpers that speak for its
/// guests, host and monitor.
struct TestParty {
    let server: TestServer
    let client: TestClient
    let id: String
    let pin: String
    let hostPin: String
    let joinUrl: String
    /// Where the host created the party from.
    let creatorAddress: String

    /// A server of its own and a party on it.
    static func given(provider: String = "demo") throws -> TestParty {
        try TestParty(TestServer(), provider: provider)
    }

    /// A party on `server`. Each is created from an address and network of its own: creation is throttled per
    /// address and network, and a test that makes many parties plays many hosts.
    init(_ server: TestServer, provider: String = "demo", settings: [String: Any] = [:]) throws {
        self.server = server
        client = server.client
        creatorAddress = Self.nextHostAddress()
        let response = try client.from(creatorAddress).send("POST", "/api/party", json: settings.merging(["provider": provider]) { _, new in new })
        guard response.status == 201 else { throw TestFailure(description: "create party: \(response)") }
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
        return "10.\(number / 250 % 250).\(number % 250).1"
    }

    @discardableResult
    func add(_ number: Int, device: String = "guest-1") throws -> Reply {
        try client.send("POST", "\(base)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    @discardableResult
    func vote(_ number: Int, device: String) throws -> Reply {
        try client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    /// The queue; throws on anything but a 200 with a queue, so a check that something is missing cannot pass on an error.
    func queue(device: String? = nil) throws -> [[String: Any]] {
        let response = try client.get("\(base)/track/queue" + (device.map { "?deviceId=\($0)" } ?? ""))
        guard response.status == 200, let queue = response.json["queue"] as? [[String: Any]] else {
            throw TestFailure(description: "queue: \(response)")
        }
        return queue
    }

    /// R17a: toggles `device`'s veto on the song.
    @discardableResult
    func veto(_ number: Int, device: String) throws -> Reply {
        try client.send("POST", "\(base)/track/veto", json: ["uri": "demo:track:\(number)", "deviceId": device])
    }

    /// The queue entry of a song (the waiting copy first, R10).
    func entry(_ number: Int, device: String? = nil) throws -> [String: Any]? {
        let entries = try queue(device: device).filter { $0["uri"] as? String == "demo:track:\(number)" }
        return entries.first { $0["isCurrentlyPlaying"] as? Bool == false } ?? entries.first
    }

    func queueUris() throws -> [String] { try queue().compactMap { $0["uri"] as? String } }

    func host(_ method: String, _ path: String, json: Any? = nil) throws -> Reply {
        try client.send(method, base + path, json: json, auth: hostPin)
    }

    /// Pairs a monitor with the host PIN (replacing a connected one); returns its token.
    func registerMonitor(device: String = "tv-1") throws -> String {
        let response = try host("PUT", "/device", json: ["deviceId": device, "kind": "monitor", "replace": true])
        guard response.status == 200, let token = response.json["monitorToken"] as? String else {
            throw TestFailure(description: "register monitor: \(response)")
        }
        return token
    }

    /// The playback state; throws on anything but a 200 with a JSON object.
    func current() throws -> [String: Any] {
        let response = try client.get("\(base)/track/current")
        guard response.status == 200, let object = response.jsonObject else { throw TestFailure(description: "current: \(response)") }
        return object
    }

    /// The current entry's uri, nil when nothing is current.
    func currentUri() throws -> String? { (try current()["track"] as? [String: Any])?["uri"] as? String }
}
