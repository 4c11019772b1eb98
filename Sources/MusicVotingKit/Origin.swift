import Foundation

/// Scheme, host and port (the default port when the URL names none): credentials never leave the origin they were
/// meant for.
struct Origin: Equatable, Sendable {
    let scheme: String
    let host: String
    let port: Int

    init?(_ url: URL?) {
        guard let url, let scheme = url.scheme?.lowercased(), let host = url.host?.lowercased() else { return nil }
        guard let port = url.port ?? ["http": 80, "https": 443][scheme] else { return nil }
        self.scheme = scheme
        self.host = host
        self.port = port
    }
}
