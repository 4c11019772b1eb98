import Foundation
import HTTPServer
import PartyCore
import PartyEngine

/// One command-line option, declared once: its flag (`--name`), environment variable (`MUSICVOTING_NAME`),
/// config-file key (`name = …`), `--help` line and docs/hosting.md row all come from this value.
struct ConfigurationOption: Sendable {
    typealias Apply = @Sendable (inout Configuration, String) throws(Configuration.ParseError) -> Void

    let name: String
    let value: String
    let help: String
    let defaultText: String
    let apply: Apply

    var flag: String { "--" + name }
    var environment: String { "MUSICVOTING_" + name.uppercased().replacingOccurrences(of: "-", with: "_") }

    /// The `--help` line: flag and placeholder, what it does and its default, the environment variable.
    var usageLine: String {
        let left = "  \(flag) \(value)".padding(toLength: 36, withPad: " ", startingAt: 0)
        return left + " \(help) (default: \(defaultText))  [\(environment)]"
    }
}

extension ConfigurationOption {
    static func text(_ name: String, _ value: String, _ help: String, default defaultText: String,
                     _ keyPath: WritableKeyPath<Configuration, String?> & Sendable) -> ConfigurationOption {
        ConfigurationOption(name: name, value: value, help: help, defaultText: defaultText) { configuration, text in
            configuration[keyPath: keyPath] = text
        }
    }

    static func url(_ name: String, _ help: String, default defaultText: String,
                    _ keyPath: WritableKeyPath<Configuration, String?> & Sendable) -> ConfigurationOption {
        ConfigurationOption(name: name, value: "URL", help: help, defaultText: defaultText) { configuration, text throws(Configuration.ParseError) in
            guard URL(string: text)?.scheme?.hasPrefix("http") == true else { throw .invalidValue(option: "--" + name, value: text) }
            configuration[keyPath: keyPath] = text
        }
    }

    static func limit(_ name: String, _ help: String, _ range: ClosedRange<Int>,
                      _ keyPath: WritableKeyPath<PartyLimits, Int> & Sendable) -> ConfigurationOption {
        ConfigurationOption(name: name, value: "N", help: help, defaultText: String(PartyLimits()[keyPath: keyPath])) {
            configuration, text throws(Configuration.ParseError) in
            guard let number = Int(boundedDigits: text, in: range) else { throw .invalidValue(option: "--" + name, value: text) }
            configuration.limits[keyPath: keyPath] = number
        }
    }

    static func list(_ text: String) -> [String] {
        text.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    /// Every option the server has, in `--help` order.
    static var all: [ConfigurationOption] { hosting + operations }

    /// What someone hosting a party sets (README's table).
    static let hosting: [ConfigurationOption] = [
        ConfigurationOption(name: "host", value: "ADDRESS", help: "address to listen on; :: for IPv6 and IPv4", defaultText: "0.0.0.0") { $0.host = $1 },
        ConfigurationOption(name: "port", value: "N", help: "TCP port; 0 picks a free one and prints it", defaultText: "8080") {
            configuration, text throws(Configuration.ParseError) in
            guard let port = UInt16(text) else { throw .invalidValue(option: "--port", value: text) }
            configuration.port = port
        },
        ConfigurationOption(name: "data", value: "DIR", help: "folder of the SQLite database", defaultText: "./data") { $0.dataDirectory = $1 },
        // Checked at start, not here: a wrong URL is a start-up error (one sentence, exit 1) like an unreachable server.
        .text("database", "URL", "PostgreSQL database (postgres://user@host:port/name) instead of SQLite in --data",
              default: "SQLite in --data", \.databaseURL),
        ConfigurationOption(name: "public-url", value: "URL", help: "base of join links and QR codes",
                            defaultText: "http://<first LAN IPv4>:<port>") { configuration, text throws(Configuration.ParseError) in
            guard text.hasPrefix("http://") || text.hasPrefix("https://") else { throw .invalidValue(option: "--public-url", value: text) }
            configuration.publicURL = text.hasSuffix("/") ? String(text.dropLast()) : text
        },
        .text("resources", "DIR", "serve Public/ and Templates/ from this folder (development: edit, restart, no rebuild)",
              default: "the copies built into the binary", \.resourcesDirectory),
        .text("tls-cert", "FILE", "PEM certificate: serve HTTPS (GnuTLS)", default: "off", \.tlsCertificatePath),
        .text("tls-key", "FILE", "PEM private key for --tls-cert", default: "off", \.tlsKeyPath),
        ConfigurationOption(name: "threads", value: "N", help: "HTTP worker threads, and as many that write the event streams", defaultText: "2") {
            configuration, text throws(Configuration.ParseError) in
            guard let threads = Int(boundedDigits: text, in: 1...64) else { throw .invalidValue(option: "--threads", value: text) }
            configuration.threads = threads
        },
        .text("library", "DIR", "a folder of music files: provider 'local'", default: "off", \.libraryDirectory),
        .text("youtube-key", "KEY", "YouTube Data API key: provider 'youtube'", default: "off", \.youtubeKey),
        .url("youtube-api-base", "YouTube Data API base (tests point it at a fake)", default: "https://www.googleapis.com/youtube/v3",
             \.youtubeBase),
        .text("spotify-client-id", "ID", "the host's Spotify app: provider 'spotify'", default: "off", \.spotifyClientId),
        .text("spotify-client-secret", "SECRET", "optional, the login uses PKCE", default: "none", \.spotifyClientSecret),
        .url("spotify-redirect-uri", "redirect URI registered in the Spotify app", default: "<public url>/api/spotify/callback",
             \.spotifyRedirectURI),
        .url("spotify-accounts-base", "Spotify Accounts base (tests)", default: "https://accounts.spotify.com", \.spotifyAccountsBase),
        .url("spotify-api-base", "Spotify Web API base (tests)", default: "https://api.spotify.com/v1", \.spotifyAPIBase),
        ConfigurationOption(name: "trusted-proxy", value: "IPS", help: "proxy addresses whose X-Forwarded-For names the client",
                            defaultText: "none") { configuration, text throws(Configuration.ParseError) in
            let addresses = list(text)
            guard addresses.allSatisfy(Request.isIPAddress) else { throw .invalidValue(option: "--trusted-proxy", value: text) }
            configuration.trustedProxies = Set(addresses)
        },
        ConfigurationOption(name: "allowed-host", value: "NAMES", help: "extra host names browsers may use (DNS rebinding check)",
                            defaultText: "none") { $0.allowedHosts = list($1) },
        .limit("max-connections-per-address", "connections one client address may hold; 0 = no limit", 0...1_000_000,
               \.connectionsPerAddress),
        ConfigurationOption(name: "max-connections-per-prefix", value: "N",
                            help: "connections one network (IPv4 /24, IPv6 /64) may hold; 0 = no limit",
                            defaultText: "half the connection limit") { configuration, text throws(Configuration.ParseError) in
            guard let number = Int(boundedDigits: text, in: 0...1_000_000) else {
                throw .invalidValue(option: "--max-connections-per-prefix", value: text)
            }
            configuration.connectionsPerPrefix = number
        },
        .limit("max-streams-per-address", "event streams one client address may hold; 0 = no limit", 0...1_000_000, \.streamsPerAddress),
        .limit("max-streams-per-party", "event streams one party may hold", 1...1_000_000, \.streamsPerParty),
        .limit("max-parties", "active parties at once", 1...40_000, \.activeParties),
        .limit("max-new-guests-per-network", "new guests one network may bring into a party in a minute (200 in 10 minutes at the default); 0 = no limit",
               0...1_000_000, \.newGuestsPerNetwork),
        ConfigurationOption(name: "config", value: "FILE", help: "'name = value' lines with these option names, # comments",
                            defaultText: "none") { _, _ in },
    ]

    /// What someone running it as a service sets (docs/operations.md's table).
    static let operations: [ConfigurationOption] = [
        ConfigurationOption(name: "metrics", value: "ADDRESS:PORT",
                            help: "serve /metrics (Prometheus) on a listener of its own, and no longer to local clients of the main one",
                            defaultText: "local clients of the main listener") { configuration, text throws(Configuration.ParseError) in
            guard let listener = ListenAddress(text) else { throw .invalidValue(option: "--metrics", value: text) }
            configuration.metricsListener = listener
        },
        ConfigurationOption(name: "drain-seconds", value: "N", help: "on SIGTERM, the longest wait for requests and streams to finish before exit",
                            defaultText: "10") { configuration, text throws(Configuration.ParseError) in
            guard let seconds = Int(boundedDigits: text, in: 0...3_600) else { throw .invalidValue(option: "--drain-seconds", value: text) }
            configuration.drainSeconds = seconds
        },
        ConfigurationOption(name: "log-format", value: "FORMAT", help: "text, or json: one JSON object per line", defaultText: "text") {
            configuration, text throws(Configuration.ParseError) in
            guard let format = LogFormat(rawValue: text) else { throw .invalidValue(option: "--log-format", value: text) }
            configuration.logFormat = format
        },
    ]
}
