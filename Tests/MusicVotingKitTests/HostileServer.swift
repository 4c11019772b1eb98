import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A server that misbehaves on purpose: a listening socket on 127.0.0.1, port 0, answering every
/// connection on its own thread with `answer`, and recording the request heads it received.
final class HostileServer: @unchecked Sendable {
    // @unchecked: `heads`, `connections` and `stopped` are guarded by `lock`; `listener` and `port` never change.
    private let lock = NSLock()
    private var heads: [String] = []
    private var connections: [Int32] = []
    private var stopped = false
    private let listener: Int32
    let port: UInt16
    private let answer: @Sendable (HostileConnection) -> Void

    init(answer: @escaping @Sendable (HostileConnection) -> Void) throws {
        self.answer = answer
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { generic in
                bind(descriptor, generic, length) == 0 && listen(descriptor, 16) == 0 && getsockname(descriptor, generic, &length) == 0
            }
        }
        guard bound else { close(descriptor); throw KitTestFailure("the hostile server cannot listen") }
        listener = descriptor
        port = UInt16(bigEndian: address.sin_port)
        Thread.detachNewThread { self.acceptLoop() }
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// Every request head received so far, in order.
    var requests: [String] { lock.lock(); defer { lock.unlock() }; return heads }
    var isStopped: Bool { lock.lock(); defer { lock.unlock() }; return stopped }

    func stop() {
        lock.lock()
        stopped = true
        shutdown(listener, Int32(SHUT_RDWR))
        for connection in connections { shutdown(connection, Int32(SHUT_RDWR)) }
        lock.unlock()
    }

    deinit { stop(); close(listener) }

    private func acceptLoop() {
        while !isStopped {
            let descriptor = accept(listener, nil, nil)
            guard descriptor >= 0 else { continue }
            lock.lock()
            connections.append(descriptor)
            lock.unlock()
            Thread.detachNewThread {
                let connection = HostileConnection(descriptor: descriptor, server: self)
                if let head = connection.readHead() {
                    self.record(head)
                    self.answer(connection)
                }
                self.lock.lock()
                self.connections.removeAll { $0 == descriptor }
                self.lock.unlock()
                close(descriptor)
            }
        }
    }

    private func record(_ head: String) { lock.lock(); heads.append(head); lock.unlock() }
}

/// One accepted connection as the answering closure sees it.
final class HostileConnection: @unchecked Sendable {
    // @unchecked: used by its own thread only.
    let descriptor: Int32
    unowned let server: HostileServer
    private(set) var head = ""

    init(descriptor: Int32, server: HostileServer) { self.descriptor = descriptor; self.server = server }

    /// The request head up to the blank line (bodies are not read: the answers ignore them).
    func readHead() -> String? {
        var bytes: [UInt8] = []
        var byte: UInt8 = 0
        while bytes.count < 65_536 {
            guard recv(descriptor, &byte, 1, 0) == 1 else { return nil }
            bytes.append(byte)
            if bytes.suffix(4) == [13, 10, 13, 10] { head = String(decoding: bytes, as: UTF8.self); return head }
        }
        return nil
    }

    /// False once the peer is gone or the server stopped.
    @discardableResult
    func send(_ text: String) -> Bool { send(Array(text.utf8)) }

    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        guard !server.isStopped else { return false }
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { Glibc.send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends `chunk` again and again until `limit` bytes went out or the peer left: true if the peer left first.
    func repeatedly(_ chunk: [UInt8], upTo limit: Int) -> Bool {
        var total = 0
        while total < limit {
            guard send(chunk) else { return true }
            total += chunk.count
        }
        return false
    }

    /// Holds the connection open (reading and dropping what comes) until the peer or the server closes it, or
    /// `seconds` pass.
    func hold(_ seconds: TimeInterval = 60) {
        var timeout = timeval(tv_sec: 0, tv_usec: 200_000)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        var scratch = [UInt8](repeating: 0, count: 4096)
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline, !server.isStopped {
            let count = scratch.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK) { return }
        }
    }
}
