/// The names this server answers to, against DNS rebinding: a page on a hostile domain whose
/// name resolves to the party laptop would otherwise talk to the API with the guest's browser. Browsers
/// always send `Host`; an IP literal, `localhost`, the public URL's host and the configured names pass.
public struct AllowedHosts: Sendable {
    private let names: Set<String>

    public init(names: [String]) {
        self.names = Set(names.map { $0.lowercased() } + ["localhost"])
    }

    /// Whether a request with this `Host` header may be answered; a request without one (HTTP/1.0 tools) may.
    public func allows(_ hostHeader: String?) -> Bool {
        guard let hostHeader, !hostHeader.isEmpty else { return true }
        guard hostHeader.utf8.count <= 255 else { return false }
        let lowercase = hostHeader.utf8.contains { $0 >= UInt8(ascii: "A") && $0 <= UInt8(ascii: "Z") } ? hostHeader.lowercased() : hostHeader
        let host = Self.hostPart(of: lowercase)
        return names.contains(host) || Request.isIPAddress(host) || host.hasSuffix(".localhost")
    }

    /// `name:port` → `name`; `[v6]:port` → `v6`.
    public static func hostPart(of header: String) -> String {
        if header.hasPrefix("["), let close = header.firstIndex(of: "]") {
            // Only a port may follow the brackets: `[::1].evil` is no address (and no name either).
            let after = header[header.index(after: close)...]
            guard after.isEmpty || after.hasPrefix(":") else { return header }
            return String(header[header.index(after: header.startIndex)..<close])
        }
        guard let colon = header.utf8.firstIndex(of: UInt8(ascii: ":")) else { return header }
        return String(header[..<colon])
    }
}
