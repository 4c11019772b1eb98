import Foundation

/// Where a test's requests go: the application in this process (`InProcessServer`), or the binary on a socket
/// (`ServerProcess`, a cluster's nginx: a `PartyHost`). The same test body runs on either; only what needs a process
/// (signals, restarts, TLS, raw sockets, start-up errors, the cluster) asks for a live one.
package protocol TestServer: AnyObject {
    /// One request from the client address `source`; `path` may carry a query.
    func respond(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String], source: String) throws -> HTTPResponse
    /// An event stream opened at `path` (with `Accept: text/event-stream` and, when given, `Last-Event-ID`).
    func events(path: String, lastEventId: Int?, source: String) throws -> SSEClient
    /// Where the server says it is reached (the start of the absolute links it hands out: covers, join links).
    var origin: String { get }
    /// Lets `seconds` pass for the server: on an injected clock at once, on a live server in real time.
    func letPass(_ seconds: TimeInterval)
}

/// Which kind of server a test's party lives on.
package enum Transport: Sendable, CustomStringConvertible {
    /// The real router and party service in the test process, an injected clock, no socket: the default.
    case inProcess
    /// The real binary on 127.0.0.1 (or, under `.alsoOnRoundRobinCluster`, three instances behind nginx).
    case live

    package var description: String { self == .inProcess ? "in process" : "live" }
}

/// What a party lives on when it lives in another process: its port is the front door (a server's, or nginx's in
/// front of a cluster).
package protocol PartyHost: TestServer {
    var port: UInt16 { get }
}

extension PartyHost {
    package func respond(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String], source: String) throws -> HTTPResponse {
        try HTTPClient(port: port, source: source).request(method, path, body: body, headers: headers)
    }

    package func events(path: String, lastEventId: Int?, source: String) throws -> SSEClient {
        try SSEClient(port: port, path: path, lastEventId: lastEventId, source: source)
    }

    package var origin: String { "http://127.0.0.1:\(port)" }

    package func letPass(_ seconds: TimeInterval) { Thread.sleep(forTimeInterval: seconds) }
}

/// A port somebody else started: an instance of a cluster spoken to directly, or its nginx.
package final class LivePort: PartyHost {
    package let port: UInt16
    package init(_ port: UInt16) { self.port = port }
}

/// Requests as a phone on the party Wi-Fi sends them, to whichever server; `source` is the client address the
/// limits key on (on a socket, a loopback address the connection is bound to: see `Connection`).
/// `@unchecked Sendable`: every server answers requests from any thread, as the HTTP server's threads call the
/// pipeline; the client itself is two constants.
package struct TestClient: RequestSending, @unchecked Sendable {
    package let server: any TestServer
    package var source = "127.0.0.1"

    package init(server: any TestServer, source: String = "127.0.0.1") {
        self.server = server
        self.source = source
    }

    /// The same client speaking from another address.
    package func from(_ source: String) -> TestClient { TestClient(server: server, source: source) }

    /// The port of a live server; a test that needs one asks for a live party.
    package var port: UInt16 {
        guard let host = server as? any PartyHost else { preconditionFailure("a socket needs a live server (TestParty.given(.live))") }
        return host.port
    }

    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> HTTPResponse {
        try server.respond(method, path, body: body, headers: headers, source: source)
    }

    /// An event stream from this client's address.
    package func events(_ path: String, lastEventId: Int? = nil) throws -> SSEClient {
        try server.events(path: path, lastEventId: lastEventId, source: source)
    }
}

/// A client that sends one request at a time (in process or over a socket): the shapes of request every test uses.
package protocol RequestSending {
    func request(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String]) throws -> HTTPResponse
}

extension RequestSending {
    package func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try request("GET", path, body: nil, headers: headers)
    }

    /// A JSON body (`json`, any JSONSerialization value) or raw text; `auth` becomes `Authorization: Bearer`.
    package func send(_ method: String, _ path: String, json: Any? = nil, raw: String? = nil, auth: String? = nil,
                      headers: [String: String] = [:]) throws -> HTTPResponse {
        var all = headers
        if let auth { all["Authorization"] = "Bearer \(auth)" }
        var body: [UInt8]?
        if let json {
            body = [UInt8](try JSONSerialization.data(withJSONObject: json, options: [.fragmentsAllowed]))
            all["Content-Type"] = "application/json"
        } else if let raw {
            body = Array(raw.utf8)
        }
        return try request(method, path, body: body ?? (method == "GET" ? nil : []), headers: all)
    }
}
