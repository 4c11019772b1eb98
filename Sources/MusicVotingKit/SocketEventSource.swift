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
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(url.port ?? 80), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            let socket = Glibc.socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            if socket >= 0 {
                if connect(socket, candidate.pointee.ai_addr, candidate.pointee.ai_addrlen) == 0 { return socket }
                close(socket)
            }
            entry = candidate.pointee.ai_next
        }
        return nil
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

/// `Transfer-Encoding: chunked`: hex size line, that many bytes, CRLF; nil on bad input (the reader then drops
/// the connection and reconnects).
struct ChunkedDecoder {
    private var buffer: [UInt8] = []
    private var remaining = 0
    private var needsLineEnd = false

    mutating func feed(_ bytes: [UInt8]) -> [UInt8]? {
        buffer += bytes
        var out: [UInt8] = []
        while true {
            if remaining > 0 {
                let take = min(remaining, buffer.count)
                out += buffer.prefix(take)
                buffer.removeFirst(take)
                remaining -= take
                if remaining > 0 { return out }
                needsLineEnd = true
            }
            if needsLineEnd {
                guard buffer.count >= 2 else { return out }
                buffer.removeFirst(2)
                needsLineEnd = false
            }
            guard let lineEnd = buffer.firstRange(of: [13, 10]) else { return buffer.count > 64 ? nil : out }
            let sizeText = String(decoding: buffer[..<lineEnd.lowerBound], as: UTF8.self).split(separator: ";").first ?? ""
            guard let size = Int(sizeText.trimmingCharacters(in: .whitespaces), radix: 16), size >= 0, size < 1 << 24 else { return nil }
            buffer.removeSubrange(..<lineEnd.upperBound)
            if size == 0 { return out }
            remaining = size
        }
    }
}
#endif
