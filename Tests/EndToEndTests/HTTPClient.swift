import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A response as the test saw it on the wire.
struct HTTPResponse {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object, or nil when it is none (an HTML page, an empty or truncated body).
    var jsonObject: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    /// The body parsed as JSON (Foundation's parser is fine on the test side); empty when it is not a JSON object,
    /// so a check that something is absent must use `answered(_:without:)`, which an error reply cannot pass.
    var json: [String: Any] { jsonObject ?? [:] }
    var jsonArray: [Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [Any] ?? [] }
    var error: String? { json["error"] as? String }

    /// A negative check that looks at the status and the raw body: the reply is `status` with a JSON object that
    /// does not hold `key` (anywhere in its text either).
    func answered(_ status: Int, without key: String) -> Bool {
        self.status == status && jsonObject != nil && jsonObject?[key] == nil && !text.contains("\"\(key)\"")
    }
}

extension HTTPResponse: CustomStringConvertible {
    /// Status and raw body, for failure messages.
    var description: String { "\(status) \(text.prefix(300))" }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}

/// A blocking TCP connection to 127.0.0.1, speaking just enough HTTP/1.1 for the tests.
final class Connection {
    let socket: Int32
    private var buffer: [UInt8] = []

    /// `source` picks the client's loopback address (all of 127.0.0.0/8 reaches the server), so a test can
    /// play several phones on the party Wi-Fi: an attacker on 127.0.0.2, a guest on 127.0.0.3.
    /// `source: "::1"` connects over IPv6 loopback instead (a server listening on `::`).
    init(port: UInt16, timeout: TimeInterval = 10, source: String = "127.0.0.1") throws {
        socket = Glibc.socket(source == "::1" ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestFailure(description: "socket() failed") }
        var time = timeval(tv_sec: Int(timeout), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_RCVTIMEO, &time, socklen_t(MemoryLayout<timeval>.size))
        if source == "::1" {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, "::1", &address.sin6_addr)
            let result = withUnsafePointer(to: &address) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in6>.size)) }
            }
            guard result == 0 else {
                close(socket)
                throw TestFailure(description: "connect to [::1]:\(port) failed")
            }
            return
        }
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else {
                close(socket)
                throw TestFailure(description: "bind to \(source) failed")
            }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else {
            close(socket)
            throw TestFailure(description: "connect to \(port) failed")
        }
    }

    deinit { close(socket) }

    func write(_ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { throw TestFailure(description: "send failed") }
            offset += sent
        }
    }

    /// More bytes from the socket; empty at EOF; throws on timeout.
    private func fill() throws -> Bool {
        var chunk = [UInt8](repeating: 0, count: 65_536)
        let count = chunk.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
        if count < 0 { throw TestFailure(description: "recv timed out or failed (errno \(errno))") }
        if count == 0 { return false }
        buffer += chunk[0..<count]
        return true
    }

    func readLine() throws -> String? {
        while true {
            if let index = buffer.firstIndex(of: 0x0A) {
                var line = Array(buffer[..<index])
                buffer.removeFirst(index + 1)
                if line.last == 0x0D { line.removeLast() }
                return String(decoding: line, as: UTF8.self)
            }
            if try !fill() { return nil }
        }
    }

    func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { if try !fill() { throw TestFailure(description: "EOF in body") } }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Status line and headers.
    func readHead() throws -> (Int, [String: String]) {
        guard let statusLine = try readLine() else { throw TestFailure(description: "no response") }
        let parts = statusLine.split(separator: " ")
        guard parts.count >= 2, let status = Int(parts[1]) else { throw TestFailure(description: "bad status line \(statusLine)") }
        var headers: [String: String] = [:]
        while let line = try readLine(), !line.isEmpty {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
        }
        return (status, headers)
    }

    func readResponse(method: String) throws -> HTTPResponse {
        let (status, headers) = try readHead()
        var body: [UInt8] = []
        if method == "HEAD" || status == 204 || status == 304 {
        } else if headers["transfer-encoding"]?.lowercased() == "chunked" {
            while let sizeLine = try readLine(), let size = Int(sizeLine.split(separator: ";")[0], radix: 16) {
                if size == 0 { _ = try readLine(); break }
                body += try readExactly(size)
                _ = try readLine()
            }
        } else if let length = headers["content-length"].flatMap(Int.init) {
            body = try readExactly(length)
        } else {
            body = try readToEnd()
        }
        return HTTPResponse(status: status, headers: headers, body: body)
    }
}

/// One request per connection, against the server under test.
struct HTTPClient {
    let port: UInt16
    /// The loopback address this client speaks from (see `Connection`).
    var source = "127.0.0.1"

    /// The same client speaking from another loopback address.
    func from(_ source: String) -> HTTPClient { HTTPClient(port: port, source: source) }

    func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> HTTPResponse {
        let connection = try Connection(port: port, source: source)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try connection.write(Array(head.utf8) + (body ?? []))
        return try connection.readResponse(method: method)
    }

    func get(_ path: String, headers: [String: String] = [:]) throws -> HTTPResponse {
        try request("GET", path, headers: headers)
    }

    func send(_ method: String, _ path: String, json: Any? = nil, raw: String? = nil, auth: String? = nil,
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
