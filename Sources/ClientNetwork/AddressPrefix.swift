#if canImport(Glibc)
import Glibc
#endif

/// One address is not one person. The network a client address belongs to, as one guest's device sees it: an IPv4 /24 or an IPv6 /64
/// (a phone on IPv6 chooses freely among the 2^64 addresses of its /64). IPv4-mapped IPv6 addresses
/// (`::ffff:a.b.c.d`, how IPv4 clients reach a dual-stack `--host ::`) are their IPv4 /24.
public enum AddressPrefix: Hashable, Sendable, CustomStringConvertible {
    case ipv4(UInt32)
    case ipv6(UInt64)

    /// From the address libmicrohttpd hands over; nil for other families.
    public init?(_ address: UnsafePointer<sockaddr>) {
        switch Int32(address.pointee.sa_family) {
        case AF_INET:
            let bytes = address.withMemoryRebound(to: sockaddr_in.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin_addr) { Array($0) } }
            self.init(ipv4: bytes)
        case AF_INET6:
            let bytes = address.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) { withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) } }
            self.init(ipv6: bytes)
        default:
            return nil
        }
    }

    /// From an address in text form (tests, logs); nil when it is not an IP address.
    public init?(_ text: String) {
        var ipv4 = in_addr()
        var ipv6 = in6_addr()
        if inet_pton(AF_INET, text, &ipv4) == 1 {
            self.init(ipv4: withUnsafeBytes(of: ipv4) { Array($0) })
        } else if inet_pton(AF_INET6, text, &ipv6) == 1 {
            self.init(ipv6: withUnsafeBytes(of: ipv6) { Array($0) })
        } else {
            return nil
        }
    }

    private init(ipv4 bytes: [UInt8]) {
        self = .ipv4(bytes[0..<3].reduce(0) { $0 << 8 | UInt32($1) } << 8)
    }

    private init(ipv6 bytes: [UInt8]) {
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            self.init(ipv4: Array(bytes[12..<16]))
        } else {
            self = .ipv6(bytes[0..<8].reduce(0) { $0 << 8 | UInt64($1) })
        }
    }

    public var description: String {
        switch self {
        case .ipv4(let network):
            return "\(network >> 24).\(network >> 16 & 0xFF).\(network >> 8 & 0xFF).0/24"
        case .ipv6(let network):
            let groups = (0..<4).map { String(network >> (48 - 16 * UInt64($0)) & 0xFFFF, radix: 16) }
            return groups.joined(separator: ":") + "::/64"
        }
    }
}

extension AddressPrefix {
    /// The network of an address in text form (IPv4 /24, IPv6 /64); anything that is no IP address is its own.
    public static func network(of address: String) -> String {
        AddressPrefix(address)?.description ?? address
    }

    /// Who a client is for host PIN checks and proofs (R24a): one exact IPv4 address (a /24 is a whole party's Wi-Fi,
    /// so it never speaks for its neighbours), or an IPv6 /64 (a guesser rotates through its 2^64 addresses).
    /// Guest limits key on `host(of:)` instead: on an IPv6 Wi-Fi every phone shares the /64.
    public static func device(of address: String) -> String {
        var ipv4 = in_addr()
        if inet_pton(AF_INET, address, &ipv4) == 1 { return address }
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return address }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        return AddressPrefix(address)?.description ?? address
    }

    /// One exact address, in one spelling (IPv4-mapped IPv6 as IPv4): the client for rations that a /64 would give
    /// a whole Wi-Fi of phones at once.
    public static func host(of address: String) -> String {
        var ipv6 = in6_addr()
        guard inet_pton(AF_INET6, address, &ipv6) == 1 else { return device(of: address) }
        let bytes = withUnsafeBytes(of: ipv6) { Array($0) }
        if bytes[0..<10].allSatisfy({ $0 == 0 }) && bytes[10] == 0xFF && bytes[11] == 0xFF {
            return bytes[12..<16].map(String.init).joined(separator: ".")
        }
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN))
        guard inet_ntop(AF_INET6, &ipv6, &text, socklen_t(text.count)) != nil else { return address }
        return String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
