#if canImport(Glibc)
import Glibc
#endif

extension Request {
    /// The longest `X-Forwarded-For` read: a chain of proxies names a few addresses; more is a client writing its own.
    public static let maximumForwardedForBytes = 1_024

    /// The client's address as a proxy in `trustedProxies` reports it in `X-Forwarded-For`; the peer's
    /// own address otherwise. Anyone else can write that header, so it is believed only from those peers
    /// (R24a). The right-most address that is not a trusted proxy is the client. Nil when a trusted proxy sent a
    /// header that cannot be read as far as the client (longer than `maximumForwardedForBytes`, or an entry there
    /// that is no address): the request is refused, never counted as the proxy's own, whose budgets every guest
    /// behind the proxy would then share with whoever wrote it. A trusted peer without the header is the client.
    public func resolvingForwardedFor(trusting trustedProxies: Set<String>) -> Request? {
        guard !trustedProxies.isEmpty, trustedProxies.contains(clientAddress), let header = header("x-forwarded-for") else {
            return self
        }
        guard header.utf8.count <= Self.maximumForwardedForBytes else { return nil }
        var resolved = self
        for candidate in header.split(separator: ",", omittingEmptySubsequences: false).reversed() {
            let address = String(candidate).trimmingSpaces
            guard Self.isIPAddress(address) else { return nil }
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
