import Foundation

/// The listening socket, bound here rather than by libmicrohttpd, so a failure names its cause (a port in use, a
/// privileged port, an address this machine lacks) and `::` listens on IPv6 and IPv4 alike; or one a supervisor
/// bound and passed on (systemd's socket activation). It owns the descriptor until `handOver()` gives it to the
/// daemon, which closes it when it stops.
final class ListeningSocket {
    private var descriptor: Int32
    let isIPv6: Bool
    /// Another process (systemd) holds the same socket and passes it to the next server: connections that arrive
    /// while this one drains must wait in the kernel's queue for it, so a drain must not shut the socket down.
    let isShared: Bool

    init(host: String, port: UInt16) throws(Server.StartError) {
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, host, &v4.sin_addr) == 1 {
            isIPv6 = false
        } else if inet_pton(AF_INET6, host, &v6.sin6_addr) == 1 {
            isIPv6 = true
        } else {
            throw .invalidHost(host)
        }
        isShared = false
        descriptor = socket(isIPv6 ? AF_INET6 : AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard descriptor >= 0 else { throw .cannotListen(host: host, port: port, reason: String(cString: strerror(errno))) }
        var yes: Int32 = 1
        setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var status: Int32
        if isIPv6 {
            // `::` takes IPv4 connections too (as ::ffff:a.b.c.d, reported as a.b.c.d): one flag, both families.
            var no: Int32 = 0
            setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &no, socklen_t(MemoryLayout<Int32>.size))
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = port.bigEndian
            status = Self.bind(descriptor, to: v6)
        } else {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            status = Self.bind(descriptor, to: v4)
        }
        if status == 0 { status = listen(descriptor, 511) }
        guard status == 0 else {
            // Not closed here: a class's init that throws once every property is set still runs deinit, which closes
            // it. Closed twice, the number could by then name another thread's newly opened file.
            let code = errno
            switch code {
            case EADDRINUSE: throw .portInUse(port)
            case EACCES: throw .privilegedPort(port)
            case EADDRNOTAVAIL: throw .addressNotHere(host)
            default: throw .cannotListen(host: host, port: port, reason: String(cString: strerror(code)))
            }
        }
    }

    /// A socket this process inherited already listening (sd_listen_fds(3): descriptor 3 and on). Refused unless it is
    /// a listening TCP socket, so a unit that passes something else fails at start with a sentence, not at accept.
    init(inherited: Int32) throws(Server.StartError) {
        var listening: Int32 = 0
        var type: Int32 = 0
        var length = socklen_t(MemoryLayout<Int32>.size)
        var address = sockaddr_storage()
        var addressLength = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let named = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(inherited, $0, &addressLength) }
        }
        guard getsockopt(inherited, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0, listening == 1,
              getsockopt(inherited, SOL_SOCKET, SO_TYPE, &type, &length) == 0, type == Int32(SOCK_STREAM.rawValue),
              named == 0, address.ss_family == sa_family_t(AF_INET) || address.ss_family == sa_family_t(AF_INET6) else {
            throw .notAListeningSocket(inherited)
        }
        // Not handed on to anything this process might start.
        _ = fcntl(inherited, F_SETFD, fcntl(inherited, F_GETFD) | FD_CLOEXEC)
        descriptor = inherited
        isIPv6 = address.ss_family == sa_family_t(AF_INET6)
        isShared = true
    }

    /// `bind(2)` with a `sockaddr_in` or `sockaddr_in6`.
    private static func bind<Address>(_ descriptor: Int32, to address: Address) -> Int32 {
        withUnsafePointer(to: address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { Glibc.bind(descriptor, $0, socklen_t(MemoryLayout<Address>.size)) }
        }
    }

    /// The descriptor, now the daemon's to close.
    func handOver() -> Int32 {
        defer { descriptor = -1 }
        return descriptor
    }

    deinit { if descriptor >= 0 { close(descriptor) } }
}
