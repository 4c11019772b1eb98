#if canImport(FoundationNetworking)
import Foundation

/// Linux only, plain HTTP: the event stream over a blocking socket on its own thread. URLSession on Linux keeps a
/// core busy (58–99 % CPU, measured) for as long as a streaming response stays open, with any server; Apple's does
/// not, so Apple platforms (and HTTPS) keep the data-task delegate.
final class SocketEventSource: @unchecked Sendable {
    // @unchecked: `descriptor` and `stopped` are guarded by `lock`; the rest is touched by the reader thread only.
    private let lock = NSLock()
    private var descriptor: Int32 = -1
    private var stopped = false
    private let url: URL
    private let reconnectDelay: TimeInterval
    private let onOpen: (_ lastEventId: String?) -> Void
    /// Returns false to close the connection (it is then reopened after `reconnectDelay`).
    private let onBytes: ([UInt8]) -> Bool
    private let lastEventId: () -> String?

    init(url: URL, reconnectDelay: TimeInterval, lastEventId: @escaping () -> String?,
         onOpen: @escaping (String?) -> Void, onBytes: @escaping ([UInt8]) -> Bool) {
        self.url = url
        self.reconnectDelay = reconnectDelay
        self.lastEventId = lastEventId
        self.onOpen = onOpen
        self.onBytes = onBytes
    }

    func start() { Thread.detachNewThread { self.run() } }

    func stop() {
        lock.lock()
        stopped = true
        if descriptor >= 0 { shutdown(descriptor, Int32(SHUT_RDWR)) }
        lock.unlock()
    }

    private var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    private func run() {
        while !isStopped {
            if let socket = connectSocket() {
                lock.lock()
                descriptor = socket
                let stopNow = stopped
                lock.unlock()
                if !stopNow { read(from: socket) }
                lock.lock()
                descriptor = -1
                lock.unlock()
                close(socket)
            }
            if !isStopped { Thread.sleep(forTimeInterval: reconnectDelay) }
        }
    }

    private func connectSocket() -> Int32? {
        guard let host = url.host else { return nil }
        return PlainSocket.connect(host: host, port: url.port ?? 80, timeout: 10)
    }

    private func read(from socket: Int32) {
        let last = lastEventId()
        var path = url.path.isEmpty ? "/" : url.path
        if let query = url.query { path += "?" + query }
        var head = "GET \(path) HTTP/1.1\r\nHost: \(url.host ?? "")\(url.port.map { ":\($0)" } ?? "")\r\n"
        head += "Accept: text/event-stream\r\nCache-Control: no-cache\r\n"
        if let last, HeaderValue.isSafe(last) { head += "Last-Event-ID: \(last)\r\n" }
        head += "\r\n"
        let request = Array(head.utf8)
        guard request.withUnsafeBytes({ send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.count else { return }

        var buffer = [UInt8](repeating: 0, count: 16_384)
        var pending: [UInt8] = []
        var headerDone = false
        var chunked = false
        var decoder = ChunkedDecoder()
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { return }
            var bytes = Array(buffer[0..<count])
            if !headerDone {
                pending += bytes
                guard let end = pending.firstRange(of: [13, 10, 13, 10]) else {
                    if pending.count > 65_536 { return }
                    continue
                }
                let header = String(decoding: pending[..<end.lowerBound], as: UTF8.self).lowercased()
                guard header.hasPrefix("http/1.1 200") || header.hasPrefix("http/1.0 200") else { return }
                chunked = header.contains("transfer-encoding: chunked")
                headerDone = true
                bytes = Array(pending[end.upperBound...])
                pending = []
                onOpen(last)
            }
            let body = chunked ? decoder.feed(bytes) : bytes
            guard let body else { return }
            if !body.isEmpty, !onBytes(body) { return }
        }
    }
}
#endif
