import Foundation
import TestSupport

/// A parsed Server-Sent Event: its id and the JSON of its data lines.
struct ReceivedEvent {
    var id: Int?
    var type: String
    var payload: [String: Any]
    var raw: String
}

/// Reads an SSE stream on a background thread and collects its events for the test to wait on.
final class SSEClient: @unchecked Sendable {
    private let connection: Connection
    private let lock = NSCondition()
    private var events: [ReceivedEvent] = []
    private var comments: [String] = []
    private var retryHint: Int?
    private var ended = false
    let status: Int
    let headers: [String: String]

    init(port: UInt16, path: String, lastEventId: Int? = nil, source: String = "127.0.0.1") throws {
        connection = try Connection(port: port, timeout: 60, source: source)
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
        if let lastEventId { head += "Last-Event-ID: \(lastEventId)\r\n" }
        try connection.write(Array((head + "\r\n").utf8))
        (status, headers) = try connection.readHead()
        guard status == 200 else { ended = true; return }
        let thread = Thread { [self] in readLoop() }
        thread.start()
    }

    private func readLoop() {
        var chunked = ChunkedText(connection: connection, chunked: headers["transfer-encoding"]?.lowercased() == "chunked")
        var id: Int?
        var data: [String] = []
        while let line = chunked.nextLine() {
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
    func waitFor(_ type: String, timeout: TimeInterval = patience, where matches: (ReceivedEvent) -> Bool = { _ in true }) throws -> ReceivedEvent {
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

    func waitForEnd(timeout: TimeInterval = patience) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        lock.lock()
        defer { lock.unlock() }
        while !ended { if !lock.wait(until: deadline) { return false } }
        return true
    }

    var received: [ReceivedEvent] { lock.lock(); defer { lock.unlock() }; return events }
    var commentLines: [String] { lock.lock(); defer { lock.unlock() }; return comments }
    var retry: Int? { lock.lock(); defer { lock.unlock() }; return retryHint }

    func close() { shutdown(connection.socket, Int32(SHUT_RDWR)) }
}

/// Lines of a (possibly chunked) body, decoded incrementally.
private struct ChunkedText {
    let connection: Connection
    let chunked: Bool
    var pending: [UInt8] = []

    mutating func nextLine() -> String? {
        while true {
            if let index = pending.firstIndex(of: 0x0A) {
                let line = Array(pending[..<index])
                pending.removeFirst(index + 1)
                return String(decoding: line, as: UTF8.self)
            }
            guard let more = nextBytes() else { return nil }
            pending += more
        }
    }

    private mutating func nextBytes() -> [UInt8]? {
        guard chunked else { return (try? connection.readLine()).flatMap { $0.map { Array(($0 + "\n").utf8) } } }
        guard let sizeLine = try? connection.readLine(), let size = Int(sizeLine.split(separator: ";").first ?? "", radix: 16),
              size > 0, let bytes = try? connection.readExactly(size) else { return nil }
        _ = try? connection.readLine()
        return bytes
    }
}
