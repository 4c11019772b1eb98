import Foundation
import TestSupport

/// A parsed Server-Sent Event: its id and the JSON of its data lines.
package struct ReceivedEvent {
    package var id: Int?
    package var type: String
    package var payload: [String: Any]
    package var raw: String
}

/// Where an event stream's bytes come from: a socket, or an `EventStream` in this process.
package protocol EventBytes: Sendable {
    /// The next bytes; nil once the stream ended.
    func next() -> [UInt8]?
    /// The client leaves.
    func close()
}

/// Reads an SSE stream on a background thread and collects its events for the test to wait on.
package final class SSEClient: @unchecked Sendable {
    private let bytes: (any EventBytes)?
    private let lock = NSCondition()
    private var events: [ReceivedEvent] = []
    private var comments: [String] = []
    private var retryHint: Int?
    private var ended = false
    package let status: Int
    package let headers: [String: String]

    /// A stream from the server on `port`, as a browser opens it from the loopback address `source`.
    package convenience init(port: UInt16, path: String, lastEventId: Int? = nil, source: String = "127.0.0.1") throws {
        let connection = try Connection(port: port, timeout: 60, source: source)
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let lastEventId { head += "Last-Event-ID: \(lastEventId)\r\n" }
        try connection.write(Array((head + "\r\n").utf8))
        let (status, headers) = try connection.readHead()
        self.init(status: status, headers: headers,
                  bytes: SocketEventBytes(connection: connection, chunked: headers["transfer-encoding"]?.lowercased() == "chunked"))
    }

    /// A stream whose head was answered with `status`; `bytes` is read only for a 200.
    package init(status: Int, headers: [String: String], bytes: (any EventBytes)?) {
        self.status = status
        self.headers = headers
        self.bytes = bytes
        guard status == 200, bytes != nil else { ended = true; return }
        let thread = Thread { [self] in readLoop() }
        thread.start()
    }

    private func readLoop() {
        var pending: [UInt8] = []
        var id: Int?
        var data: [String] = []
        func nextLine() -> String? {
            while true {
                if let index = pending.firstIndex(of: 0x0A) {
                    let line = Array(pending[..<index])
                    pending.removeFirst(index + 1)
                    return String(decoding: line, as: UTF8.self)
                }
                guard let more = bytes?.next() else { return nil }
                pending += more
            }
        }
        while let line = nextLine() {
            if line.isEmpty {
                if !data.isEmpty { deliver(id: id, data: data.joined(separator: "\n")) }
                id = nil
                data = []
            } else if line.hasPrefix(":") {
                lock.lock(); comments.append(line); lock.broadcast(); lock.unlock()
            } else if line.hasPrefix("data: ") {
                data.append(String(line.dropFirst(6)))
            } else if line.hasPrefix("id: ") {
                id = Int(line.dropFirst(4))
            } else if line.hasPrefix("retry: ") {
                lock.lock(); retryHint = Int(line.dropFirst(7)); lock.unlock()
            }
        }
        lock.lock(); ended = true; lock.broadcast(); lock.unlock()
    }

    private func deliver(id: Int?, data: String) {
        let object = (try? JSONSerialization.jsonObject(with: Data(data.utf8))) as? [String: Any] ?? [:]
        let event = ReceivedEvent(id: id, type: object["type"] as? String ?? "", payload: object["payload"] as? [String: Any] ?? [:],
                                  raw: data)
        lock.lock(); events.append(event); lock.broadcast(); lock.unlock()
    }

    /// Waits until an event of `type` (after `index` events) arrives; returns it.
    @discardableResult
    package func waitFor(_ type: String, timeout: TimeInterval = patience, where matches: (ReceivedEvent) -> Bool = { _ in true }) throws -> ReceivedEvent {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while true {
            if let event = events.first(where: { $0.type == type && matches($0) }) { return event }
            if ended || !lock.wait(until: deadline) {
                throw TestFailure(description: "no \(type) event; got \(events.map(\.type))")
            }
        }
    }

    package func waitForEnd(timeout: TimeInterval = patience) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !ended { if !lock.wait(until: deadline) { return false } }
        return true
    }

    package var received: [ReceivedEvent] { lock.lock(); defer { lock.unlock() }; return events }
    package var commentLines: [String] { lock.lock(); defer { lock.unlock() }; return comments }
    package var retry: Int? { lock.lock(); defer { lock.unlock() }; return retryHint }

    package func close() { bytes?.close() }
}

/// A socket's event stream body, chunked or not. `@unchecked Sendable`: read on the client's one reading thread;
/// `close` only shuts the socket down.
private final class SocketEventBytes: EventBytes, @unchecked Sendable {
    let connection: Connection
    let chunked: Bool

    init(connection: Connection, chunked: Bool) {
        self.connection = connection
        self.chunked = chunked
    }

    func next() -> [UInt8]? {
        guard chunked else { return (try? connection.readLine()).flatMap { $0.map { Array(($0 + "\n").utf8) } } }
        guard let sizeLine = try? connection.readLine(), let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16),
              size > 0, let bytes = try? connection.readExactly(size) else { return nil }
        _ = try? connection.readLine()
        return bytes
    }

    func close() { shutdown(connection.socket, Int32(SHUT_RDWR)) }
}
