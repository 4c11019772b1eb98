import HTTPServer

/// `ADDRESS:PORT` of a listener (`[::1]:9100` for IPv6), as an operator writes it.
public struct ListenAddress: Sendable, Equatable {
    public let host: String
    public let port: UInt16

    public init?(_ text: String) {
        guard let colon = text.lastIndex(of: ":"), let port = UInt16(text[text.index(after: colon)...]) else { return nil }
        var host = String(text[..<colon])
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        guard Request.isIPAddress(host) else { return nil }
        self.host = host
        self.port = port
    }
}
