#if canImport(Glibc)
import Glibc
#endif

extension Request {
    /// The client's address as a proxy in `trustedProxies` reports it in `X-Forwarded-For`; the peer's
    /// own address otherwise. Anyone else can write that header, so it is believed only from those peers
    /// (R24a). The right-most address that is not a trusted proxy is the client; a malformed one is ignored.
    public func resolvingForwardedFor(trusting trustedProxies: Set<String>) -> Request {
        guard !trustedProxies.isEmpty, trustedProxies.contains(clientAddress),
              let header = header("x-forwarded-for"), header.utf8.count <= 1_024 else { return self }
        var resolved = self
        for candidate in header.split(separator: ",").reversed() {
            let address = String(candidate).trimmingSpaces
            guard Self.isIPAddress(address) else { return self }
            resolved.clientAddress = address
            if !trustedProxies.contains(address) { break }
        }
        return resolved
    }

    /// An IPv4 or IPv6 literal, as `inet_pton` reads it.
    public static func isIPAddress(_ text: String) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 45 else { return false }
        var buffer = [UInt8](repeating: 0, count: 16)
        return inet_pton(AF_INET, text, &buffer) == 1 || inet_pton(AF_INET6, text, &buffer) == 1
    }
}
