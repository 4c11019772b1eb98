import Foundation
import HTTPServer
import PartyCore
import PartyEngine

/// How the server runs: flags, mirrored by `MUSICVOTING_*` environment variables (flags win).
public struct Configuration: Sendable, Equatable {
    public var host = "0.0.0.0"
    public var port: UInt16 = 8080
    public var dataDirectory = "./data"
    /// `--database URL`: a PostgreSQL database (`postgres://…`) instead of the SQLite file in `dataDirectory`.
    public var databaseURL: String?
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
    public var limits = PartyLimits()
    /// Connections one network prefix (IPv4 /24, IPv6 /64) may hold; nil: `Server.defaultPerPrefixConnectionLimit`.
    public var connectionsPerPrefix: Int?
    /// `--metrics ADDRESS:PORT`: `/metrics` on a listener of its own; nil: on the main one, to local clients.
    public var metricsListener: ListenAddress?
    /// On SIGTERM: how long requests, commits and streams get to finish before the process exits.
    public var drainSeconds = 10
    /// `--log-format json`: one JSON object per log line.
    public var logFormat = LogFormat.text
    /// The listening socket systemd passed (`musicvoting.socket`), served instead of `host` and `port`; nil binds them.
    public var inheritedSocket: Int32?

    public init() {}

    /// Sets the log's format for the process, before its first line.
    public func useLogFormat() {
        Log.use(logFormat)
        // libmicrohttpd writes its own lines to standard error; in JSON they become lines of the log.
        if logFormat == .json { Server.sendLibraryLog { Log.error("libmicrohttpd: " + $0) } }
    }

    /// docs/hosting.md's option table (`musicvoting --help-markdown` prints it first), rendered from the same option table.
    public static var markdownTable: String { markdownTable(ConfigurationOption.hosting) }

    /// docs/operations.md's option table (`musicvoting --help-markdown` prints it second).
    public static var operationsMarkdownTable: String { markdownTable(ConfigurationOption.operations) }

    static func markdownTable(_ options: [ConfigurationOption]) -> String {
        (["| option | environment | default | what it does |", "|---|---|---|---|"] + options.map { option in
            "| `\(option.flag) \(option.value)` | `\(option.environment)` | \(option.defaultText) | \(option.help) |"
        }).joined(separator: "\n")
    }

    /// `--help`, rendered from the option table.
    public static var usage: String {
        (["Usage: musicvoting [options]", ""] + ConfigurationOption.all.map(\.usageLine)
            + ["  --help".padding(toLength: 36, withPad: " ", startingAt: 0) + " show this text"]).joined(separator: "\n")
    }

    public enum ParseError: Error, Equatable, CustomStringConvertible {
        case help
        case helpMarkdown
        case unknownOption(String)
        case missingValue(String)
        case invalidValue(option: String, value: String)

        public var description: String {
            switch self {
            case .help: return Configuration.usage
            case .helpMarkdown: return Configuration.markdownTable + "\n\n" + Configuration.operationsMarkdownTable
            case .unknownOption(let option): return "unknown option \(option)\n\n\(Configuration.usage)"
            case .missingValue(let option): return "\(option) needs a value"
            case let .invalidValue(option, value): return "invalid value for \(option): \(value)"
            }
        }
    }

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
                guard parts.count == 2, parts[0] != "config", ConfigurationOption.all.contains(where: { $0.name == parts[0] }) else {
                    throw .invalidValue(option: "--config", value: line)
                }
                values["--" + parts[0]] = parts[1]
            }
        }
        for option in ConfigurationOption.all {
            if let value = environment[option.environment], !value.isEmpty { values[option.flag] = value }
        }
        var index = 0
        while index < arguments.count {
            let argument = arguments[index]
            if argument == "--help" || argument == "-h" { throw .help }
            if argument == "--help-markdown" { throw .helpMarkdown }
            if argument == "--config" { index += 2; continue }
            if argument.hasPrefix("--config=") { index += 1; continue }
            let parts = argument.split(separator: "=", maxSplits: 1).map(String.init)
            guard ConfigurationOption.all.contains(where: { $0.flag == parts[0] }) else { throw .unknownOption(argument) }
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
        for option in ConfigurationOption.all {
            if let value = values[option.flag] { try option.apply(&configuration, value) }
        }
        configuration.inheritedSocket = SocketActivation.listeningSocket(environment: environment)
        return configuration
    }
}
