/// Issue 23: one address is not one person. A phone on IPv6 owns a whole /64 and rotates through it; a LAN
/// hands out hundreds of IPv4 addresses in one /24. Limits count the prefix next to the exact address.
public enum AddressPrefix {
    /// The network an address belongs to: IPv6 /64, IPv4 /24 (IPv4-mapped IPv6 counts as IPv4). Anything that
    /// is no IP address (a test's name for a client) is its own prefix.
    public static func network(of address: String) -> String {
        switch parse(address) {
        case .v4(let octets): return "\(octets[0]).\(octets[1]).\(octets[2]).0/24"
        case .v6(let groups): return groups.prefix(4).map { String($0, radix: 16) }.joined(separator: ":") + "::/64"
        case nil: return address
        }
    }

    /// Who a client is when it proves a secret: an IPv6 /64 (one phone, whatever address it rotates to) or one
    /// exact IPv4 address (a /24 is a whole party's Wi-Fi, so it never proves anything for its neighbours).
    public static func device(of address: String) -> String {
        switch parse(address) {
        case .v4(let octets): return octets.map(String.init).joined(separator: ".")
        case .v6: return network(of: address)
        case nil: return address
        }
    }

    enum Parsed: Equatable {
        case v4([UInt8])
        case v6([UInt16])
    }

    static func parse(_ text: String) -> Parsed? {
        let address = text.split(separator: "%", maxSplits: 1).first.map(String.init) ?? text
        if let octets = ipv4(Substring(address)) { return .v4(octets) }
        guard let groups = ipv6(address) else { return nil }
        if groups[0..<5].allSatisfy({ $0 == 0 }) && groups[5] == 0xffff {
            return .v4([UInt8(groups[6] >> 8), UInt8(groups[6] & 0xff), UInt8(groups[7] >> 8), UInt8(groups[7] & 0xff)])
        }
        return .v6(groups)
    }

    private static func ipv4(_ text: Substring) -> [UInt8]? {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 4 else { return nil }
        let octets = parts.compactMap { part -> UInt8? in
            guard (1...3).contains(part.count), part.allSatisfy(\.isASCIIDigit) else { return nil }
            return UInt8(part)
        }
        return octets.count == 4 ? octets : nil
    }

    /// Eight groups, `::` expanded, a trailing dotted IPv4 taken as the last two groups.
    private static func ipv6(_ text: String) -> [UInt16]? {
        guard text.contains(":"), text.utf8.count <= 45 else { return nil }
        let halves = text.components(separatedBy: "::")
        guard halves.count <= 2 else { return nil }
        func groups(_ half: String) -> [UInt16]? {
            if half.isEmpty { return [] }
            var result: [UInt16] = []
            let parts = half.split(separator: ":", omittingEmptySubsequences: false)
            for (index, part) in parts.enumerated() {
                if index == parts.count - 1, part.contains("."), let octets = ipv4(part) {
                    result += [UInt16(octets[0]) << 8 | UInt16(octets[1]), UInt16(octets[2]) << 8 | UInt16(octets[3])]
                } else {
                    guard (1...4).contains(part.count), let value = UInt16(part, radix: 16) else { return nil }
                    result.append(value)
                }
            }
            return result
        }
        guard let head = groups(halves[0]) else { return nil }
        if halves.count == 1 { return head.count == 8 ? head : nil }
        guard let tail = groups(halves[1]), head.count + tail.count < 8 else { return nil }
        return head + Array(repeating: 0, count: 8 - head.count - tail.count) + tail
    }
}

private extension Character {
    var isASCIIDigit: Bool { isASCII && isNumber }
}
