import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A blocking TCP connection to 127.0.0.1, speaking just enough HTTP/1.1 for the tests.
package final class Connection {
    package let socket: Int32
    private var buffer: [UInt8] = []

    /// `source` picks the client's loopback address (all of 127.0.0.0/8 reaches the server), so a test can
    /// play several phones on the party Wi-Fi: an attacker on 127.0.0.2, a guest on 127.0.0.3.
    /// `source: "::1"` connects over IPv6 loopback instead (a server listening on `::`).
    package init(port: UInt16, timeout: TimeInterval = 10, source: String = "127.0.0.1") throws {
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
            guard result == 0 else { throw TestFailure(description: "connect to [::1]:\(port) failed") }
            return
        }
        if source != "127.0.0.1" {
            var local = sockaddr_in()
            local.sin_family = sa_family_t(AF_INET)
            local.sin_addr.s_addr = inet_addr(source)
            let bound = withUnsafePointer(to: &local) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
            }
            guard bound == 0 else { throw TestFailure(description: "bind to \(source) failed") }
        }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard result == 0 else { throw TestFailure(description: "connect to \(port) failed") }
    }

    /// Also after a failed connect: a class's init that throws once every property is set still runs deinit. (Closed
    /// there as well, the number was closed twice, and the second close could end another test thread's new file.)
    deinit { close(socket) }

    package func write(_ bytes: [UInt8]) throws {
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

    package func readLine() throws -> String? {
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

    package func readExactly(_ count: Int) throws -> [UInt8] {
        while buffer.count < count { if try !fill() { throw TestFailure(description: "EOF in body") } }
        let bytes = Array(buffer[..<count])
        buffer.removeFirst(count)
        return bytes
    }

    package func readToEnd() throws -> [UInt8] {
        while try fill() {}
        defer { buffer.removeAll() }
        return buffer
    }

    /// Status line and headers.
    package func readHead() throws -> (Int, [String: String]) {
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

    package func readResponse(method: String) throws -> HTTPResponse {
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
package struct HTTPClient: RequestSending {
    package let port: UInt16
    /// The loopback address this client speaks from (see `Connection`).
    package var source = "127.0.0.1"

    package init(port: UInt16, source: String = "127.0.0.1") {
        self.port = port
        self.source = source
    }

    /// The same client speaking from another loopback address.
    package func from(_ source: String) -> HTTPClient { HTTPClient(port: port, source: source) }

    package func request(_ method: String, _ path: String, body: [UInt8]? = nil, headers: [String: String] = [:]) throws -> HTTPResponse {
        let connection = try Connection(port: port, source: source)
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let body { head += "Content-Length: \(body.count)\r\n" }
        head += "\r\n"
        try connection.write(Array(head.utf8) + (body ?? []))
        return try connection.readResponse(method: method)
    }
}
