#if canImport(FoundationNetworking)
import Foundation

/// Linux, plain HTTP: the TCP side of the kit's own readers (`SocketEventSource`, `SocketExchange`), which wait in
/// the kernel instead of in URLSession.
enum PlainSocket {
    /// A blocking socket connected to `host`:`port` (each of its addresses in turn, each given `timeout` seconds),
    /// nil when none answered.
    static func connect(host: String, port: Int, timeout: TimeInterval) -> Int32? {
        var hints = addrinfo()
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        var list: UnsafeMutablePointer<addrinfo>?
        guard getaddrinfo(host, String(port), &hints, &list) == 0, let first = list else { return nil }
        defer { freeaddrinfo(list) }
        var entry: UnsafeMutablePointer<addrinfo>? = first
        while let candidate = entry {
            let socket = Glibc.socket(candidate.pointee.ai_family, candidate.pointee.ai_socktype, candidate.pointee.ai_protocol)
            if socket >= 0 {
                if connected(socket, to: candidate.pointee, within: timeout) { return socket }
                close(socket)
            }
            entry = candidate.pointee.ai_next
        }
        return nil
    }

    /// Connects without blocking so the wait is bounded, then makes the socket blocking again.
    private static func connected(_ socket: Int32, to address: addrinfo, within timeout: TimeInterval) -> Bool {
        let flags = fcntl(socket, F_GETFL)
        _ = fcntl(socket, F_SETFL, flags | O_NONBLOCK)
        defer { _ = fcntl(socket, F_SETFL, flags) }
        if Glibc.connect(socket, address.ai_addr, address.ai_addrlen) == 0 { return true }
        guard errno == EINPROGRESS, wait(socket, for: Int16(POLLOUT), timeout: timeout) else { return false }
        var error: Int32 = 0
        var size = socklen_t(MemoryLayout<Int32>.size)
        return getsockopt(socket, SOL_SOCKET, SO_ERROR, &error, &size) == 0 && error == 0
    }

    /// True when `socket` is ready for `events` (or closed) within `timeout` seconds; the thread sleeps in poll(2)
    /// meanwhile.
    static func wait(_ socket: Int32, for events: Int16, timeout: TimeInterval) -> Bool {
        guard timeout > 0 else { return false }
        var entry = pollfd(fd: socket, events: events, revents: 0)
        let milliseconds = Int32(clamping: Int((timeout * 1_000).rounded(.up)))
        var ready: Int32
        repeat { ready = poll(&entry, 1, milliseconds) } while ready < 0 && errno == EINTR
        return ready > 0
    }
}
#endif
