import Foundation
import HTTPServer
import PartyCore

/// How the server runs: flags, mirrored by `MUSICVOTING_*` environment variables (flags win).
public struct Configuration: Sendable, Equatable {
    public var host = "0.0.0.0"
    public var port: UInt16 = 8080
    public var dataDirectory = "./data"
    /// The base of join URLs and QR codes; default: this machine's first non-loopback IPv4 and the port.
    public var publicURL: String?
    public var resourcesDirectory: String?
    public var tlsCertificatePath: String?
    public var tlsKeyPath: String?
    public var threads = 2
    /// `--library DIR`: the host's music folder for provider `local`.
    public var libraryDirectory: String?
    /// YouTube Data API key; the base is configurable so tests talk to a local fake.
    public var youtubeKey: String?
    public var youtubeBase: String?
    /// The host's Spotify app; redirect default: `<public url>/api/spotify/callback`.
    public var spotifyClientId: String?
    public var spotifyClientSecret: String?
    public var spotifyRedirectURI: String?
    public var spotifyAccountsBase: String?
    public var spotifyAPIBase: String?
    /// Peers whose `X-Forwarded-For` names the client (a TLS proxy in front); nobody else's is believed.
    public var trustedProxies: Set<String> = []
    /// Host names besides the public URL's that browsers may use to reach this server (DNS rebinding check).
    public var allowedHosts: [String] = []
    /// Limits that keep one phone from starving the party (issue 10); 0 turns a per-address limit off.
    public var limits = Limits()

    public struct Limits: Sendable, Equatable {
        public var connectionsPerAddress = 64
        public var streamsPerAddress = 8
        public var streamsPerParty = 1_000
        public var activeParties = 5_000
        public init() {}
    }

    public init() {}

    public static let usage = """
        Usage: musicvoting [options]

          --host ADDRESS        IPv4 address to listen on (default 0.0.0.0)         MUSICVOTING_HOST
          --port N              TCP port, 0 picks a free one (default 8080)        MUSICVOTING_PORT
          --data DIR            folder for the SQLite database (default ./data)    MUSICVOTING_DATA
          --public-url URL      base of join links and QR codes                    MUSICVOTING_PUBLIC_URL
                                (default http://<first LAN IPv4>:<port>)
          --resources DIR       folder holding Public/ and Templates/               MUSICVOTING_RESOURCES
                                (default: the current folder, else next to the binary's package)
          --tls-cert FILE       PEM certificate: serve HTTPS                       MUSICVOTING_TLS_CERT
          --tls-key FILE        PEM private key for --tls-cert                     MUSICVOTING_TLS_KEY
          --threads N           HTTP worker threads (default 2)                    MUSICVOTING_THREADS
          --library DIR         a folder of music files: provider 'local'          MUSICVOTING_LIBRARY
          --youtube-key KEY     YouTube Data API key: provider 'youtube'           MUSICVOTING_YOUTUBE_KEY
          --youtube-api-base URL  (tests) default https://www.googleapis.com/youtube/v3  MUSICVOTING_YOUTUBE_API_BASE
          --spotify-client-id ID      Spotify app: provider 'spotify'           MUSICVOTING_SPOTIFY_CLIENT_ID
          --spotify-client-secret S   optional (PKCE works without)             MUSICVOTING_SPOTIFY_CLIENT_SECRET
          --spotify-redirect-uri URL  default <public url>/api/spotify/callback MUSICVOTING_SPOTIFY_REDIRECT_URI
          --spotify-accounts-base URL, --spotify-api-base URL   (tests)         MUSICVOTING_SPOTIFY_ACCOUNTS_BASE, _API_BASE
          --trusted-proxy IPS   comma-separated proxy addresses whose            MUSICVOTING_TRUSTED_PROXY
                                X-Forwarded-For is believed (default: none)
          --allowed-host NAMES  comma-separated extra host names (e.g. party.lan)  MUSICVOTING_ALLOWED_HOST
          --max-connections-per-address N  (default 64, 0 = off)    MUSICVOTING_MAX_CONNECTIONS_PER_ADDRESS
          --max-streams-per-address N      event streams (default 8) MUSICVOTING_MAX_STREAMS_PER_ADDRESS
          --max-streams-per-party N        (default 1000)            MUSICVOTING_MAX_STREAMS_PER_PARTY
          --max-parties N                  active parties (default 5000) MUSICVOTING_MAX_PARTIES
          --config FILE         'name = value' lines with these flag names          MUSICVOTING_CONFIG
          --help                show this text
        """

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case help
        case unknownOption(String)
        case missingValue(String)
        case invalidValue(option: String, value: String)

        public var description: String {
            switch self {
            case .help: return Configuration.usage
            case .unknownOption(let option): return "unknown option \(option)\n\n\(Configuration.usage)"
            case .missingValue(let option): return "\(option) needs a value"
            case let .invalidValue(option, value): return "invalid value for \(option): \(value)"
            }
        }
    }

    private static let options: [(flag: String, environment: String)] = [
        ("--host", "MUSICVOTING_HOST"), ("--port", "MUSICVOTING_PORT"), ("--data", "MUSICVOTING_DATA"),
        ("--public-url", "MUSICVOTING_PUBLIC_URL"), ("--resources", "MUSICVOTING_RESOURCES"),
        ("--tls-cert", "MUSICVOTING_TLS_CERT"), ("--tls-key", "MUSICVOTING_TLS_KEY"), ("--threads", "MUSICVOTING_THREADS"),
        ("--library", "MUSICVOTING_LIBRARY"), ("--youtube-key", "MUSICVOTING_YOUTUBE_KEY"),
        ("--youtube-api-base", "MUSICVOTING_YOUTUBE_API_BASE"), ("--spotify-client-id", "MUSICVOTING_SPOTIFY_CLIENT_ID"),
        ("--spotify-client-secret", "MUSICVOTING_SPOTIFY_CLIENT_SECRET"), ("--spotify-redirect-uri", "MUSICVOTING_SPOTIFY_REDIRECT_URI"),
        ("--spotify-accounts-base", "MUSICVOTING_SPOTIFY_ACCOUNTS_BASE"), ("--spotify-api-base", "MUSICVOTING_SPOTIFY_API_BASE"),
        ("--trusted-proxy", "MUSICVOTING_TRUSTED_PROXY"), ("--allowed-host", "MUSICVOTING_ALLOWED_HOST"),
    ] + limitOptions.map { ($0.flag, $0.environment) }

    private static let limitOptions: [(flag: String, environment: String, keyPath: WritableKeyPath<Limits, Int> & Sendable, range: ClosedRange<Int>)] = [
        ("--max-connections-per-address", "MUSICVOTING_MAX_CONNECTIONS_PER_ADDRESS", \.connectionsPerAddress, 0...1_000_000),
        ("--max-streams-per-address", "MUSICVOTING_MAX_STREAMS_PER_ADDRESS", \.streamsPerAddress, 0...1_000_000),
        ("--max-streams-per-party", "MUSICVOTING_MAX_STREAMS_PER_PARTY", \.streamsPerParty, 1...1_000_000),
        ("--max-parties", "MUSICVOTING_MAX_PARTIES", \.activeParties, 1...40_000),
    ]

    /// Flags win over `MUSICVOTING_*` variables, which win over the optional `--config FILE`
    /// (`name = value` lines with the flag names, `#` comments).
    public static func parse(arguments: [String], environment: [String: String],
                             readFile: (String) -> String? = { try? String(contentsOfFile: $0, encoding: .utf8) }) throws(ParseError) -> Configuration {
        var values: [String: String] = [:]
        var configPath = environment["MUSICVOTING_CONFIG"]
        if let index = arguments.firstIndex(of: "--config") {
            guard index + 1 < arguments.count else { throw .missingValue("--config") }
            configPath = arguments[index + 1]
        } else if let inline = arguments.first(where: { $0.hasPrefix("--config=") }) {
            configPath = String(inline.dropFirst("--config=".count))
        }
        if let configPath {
            guard let text = readFile(configPath) else { throw .invalidValue(option: "--config", value: configPath) }
            for rawLine in text.split(whereSeparator: \.isNewline) {
                let line = rawLine.trimmingCharacters(in: .whitespaces)
                guard !line.isEmpty, !line.hasPrefix("#") else { continue }
                let parts = line.split(separator: "=", maxSplits: 1).map { $0.trimmingCharacters(in: .whitespaces) }
                guard parts.count == 2, options.contains(where: { $0.flag == "--" + parts[0] }) else {
                    throw .invalidValue(option: "--config", value: line)
                }
                values["--" + parts[0]] = parts[1]
            }
        }
        for option in options { if let value = environment[option.environment], !value.isEmpty { values[option.flag] = value } }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { throw .help }
            if argument == "--config" { index += 2; continue }
            if argument.hasPrefix("--config=") { index += 1; continue }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard options.contains(where: { $0.flag == parts[0] }) else { throw .unknownOption(argument) }
            if parts.count == 2 {
                values[parts[0]] = parts[1]
            } else {
                guard index + 1 < arguments.count else { throw .missingValue(argument) }
                index += 1
                values[argument] = arguments[index]
            }
            index += 1
        }
        var configuration = Configuration()
        if let host = values["--host"] { configuration.host = host }
        if let port = values["--port"] {
            guard let number = UInt16(port) else { throw .invalidValue(option: "--port", value: port) }
            configuration.port = number
        }
        if let threads = values["--threads"] {
            guard let number = Int(threads), (1...64).contains(number) else { throw .invalidValue(option: "--threads", value: threads) }
            configuration.threads = number
        }
        if let data = values["--data"] { configuration.dataDirectory = data }
        if let url = values["--public-url"] {
            guard url.hasPrefix("http://") || url.hasPrefix("https://") else { throw .invalidValue(option: "--public-url", value: url) }
            configuration.publicURL = url.hasSuffix("/") ? String(url.dropLast()) : url
        }
        configuration.resourcesDirectory = values["--resources"]
        configuration.tlsCertificatePath = values["--tls-cert"]
        configuration.tlsKeyPath = values["--tls-key"]
        configuration.libraryDirectory = values["--library"]
        configuration.youtubeKey = values["--youtube-key"]
        configuration.spotifyClientId = values["--spotify-client-id"]
        configuration.spotifyClientSecret = values["--spotify-client-secret"]
        for (option, keyPath) in [("--spotify-redirect-uri", \Configuration.spotifyRedirectURI),
                                  ("--spotify-accounts-base", \Configuration.spotifyAccountsBase),
                                  ("--spotify-api-base", \Configuration.spotifyAPIBase)] {
            guard let value = values[option] else { continue }
            guard URL(string: value)?.scheme?.hasPrefix("http") == true else { throw .invalidValue(option: option, value: value) }
            configuration[keyPath: keyPath] = value
        }
        if let base = values["--youtube-api-base"] {
            guard URL(string: base)?.scheme?.hasPrefix("http") == true else { throw .invalidValue(option: "--youtube-api-base", value: base) }
            configuration.youtubeBase = base
        }
        for option in limitOptions {
            guard let text = values[option.flag] else { continue }
            guard let number = Int(boundedDigits: text, in: option.range) else { throw .invalidValue(option: option.flag, value: text) }
            configuration.limits[keyPath: option.keyPath] = number
        }
        if let hosts = values["--allowed-host"] {
            configuration.allowedHosts = hosts.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
        }
        if let proxies = values["--trusted-proxy"] {
            let addresses = proxies.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
            guard addresses.allSatisfy(Request.isIPAddress) else { throw .invalidValue(option: "--trusted-proxy", value: proxies) }
            configuration.trustedProxies = Set(addresses)
        }
        return configuration
    }
}
