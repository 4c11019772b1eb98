import Foundation
import HTTPServer
import MusicVotingServer

/// The real application (routes, party service, SQLite store in a folder of its own or a PostgreSQL database, demo
/// provider) in this process, answering `Request` values through the pipeline the HTTP server uses, with no socket.
/// Time is the injected `clock`; nothing ticks on its own (`tick()` runs the once-a-second playback watch).
package final class InProcessServer: TestServer {
    /// The public address parties name in their join URLs, as `--public-url` would set it.
    package static let publicURL = "http://party.test:8080"
    package let application: Application
    package let clock: ManualClock
    package let dataDirectory: String
    /// Whether this server removes the folder when it goes (a restarted one takes it over from the stopped one).
    private var ownsDataDirectory: Bool

    package init(clock: ManualClock = ManualClock(), configure: (inout Configuration) -> Void = { _ in }) throws {
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
    package init(restarting stopped: InProcessServer) throws {
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

    package var client: TestClient { TestClient(server: self) }

    package var origin: String { Self.publicURL }

    /// Time passes as on a running server: the clock moves a second at a time, and after each second the
    /// once-a-second playback watch runs (`tick`).
    package func letPass(_ seconds: TimeInterval) {
        var left = seconds
        while left > 0 {
            clock.advance(by: min(1, left))
            left -= 1
            tick()
        }
    }

    /// What the server's once-a-second upkeep does for playback: a song that ended gives way to the next.
    package func tick() { application.service.watchPlayback() }

    package func respond(to request: Request) throws -> HTTPResponse { try HTTPResponse(application.respond(to: request)) }

    /// `path` may carry a query; its arguments are URL-decoded, as libmicrohttpd hands them over.
    package func respond(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String], source: String) throws -> HTTPResponse {
        try HTTPResponse(application.respond(to: Self.request(method, path, body: body, headers: headers, source: source)))
    }

    package func events(path: String, lastEventId: Int?, source: String) throws -> SSEClient {
        var headers = ["Accept": "text/event-stream"]
        if let lastEventId { headers["Last-Event-ID"] = String(lastEventId) }
        var response = application.respond(to: Self.request("GET", path, body: nil, headers: headers, source: source))
        if case .deferred(let deferred) = response.body { response = deferred.wait() }
        let head = try HTTPResponse(response)
        guard case .stream(let stream) = response.body else { return SSEClient(status: head.status, headers: head.headers, bytes: nil) }
        return SSEClient(status: head.status, headers: head.headers, bytes: InProcessEventBytes(stream: stream, server: self))
    }

    static func request(_ method: String, _ path: String, body: [UInt8]?, headers: [String: String], source: String) -> Request {
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
        return Request(method: method, path: String(parts[0]), query: query, headers: lowercased, body: body ?? [],
                       clientAddress: source)
    }
}

/// An event stream's bytes as libmicrohttpd would pull them, polled: the stream ends when the server closes it, the
/// client closes it, or the server is gone; each end is reported to the server once, as a connection's end would be.
/// `@unchecked Sendable`: `lock` guards `ended`.
final class InProcessEventBytes: EventBytes, @unchecked Sendable {
    private let stream: EventStream
    private weak var server: InProcessServer?
    private let lock = NSLock()
    private var ended = false

    init(stream: EventStream, server: InProcessServer) {
        self.stream = stream
        self.server = server
    }

    func next() -> [UInt8]? {
        var buffer = [CChar](repeating: 0, count: 65_536)
        while true {
            if lock.withLock({ ended }) || server == nil { end(); return nil }
            let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) }
            if count > 0 { return buffer[0..<count].map { UInt8(bitPattern: $0) } }
            if count < 0 { end(); return nil }
            Thread.sleep(forTimeInterval: 0.005)
        }
    }

    func close() { end() }

    private func end() {
        let first = lock.withLock { () -> Bool in
            defer { ended = true }
            return !ended
        }
        if first { stream.finish() }
    }
}
