import Foundation
import Testing
@testable import MusicVotingServer

@Suite("Configuration: flags, MUSICVOTING_* variables, config file")
struct ConfigurationTests {
    @Test func defaultsAreTheEmbeddedParty() throws {
        let configuration = try Configuration.parse(arguments: [], environment: [:])
        #expect(configuration.host == "0.0.0.0" && configuration.port == 8080 && configuration.dataDirectory == "./data")
        #expect(configuration.spotifyClientId == nil && configuration.youtubeKey == nil && configuration.libraryDirectory == nil)
    }

    @Test func flagsBeatEnvironmentWhichBeatsTheConfigFile() throws {
        let file = """
            # party settings
            port = 7000
            data = /srv/party
            youtube-key = from-file
            spotify-client-id = file-client
            """
        let configuration = try Configuration.parse(
            arguments: ["--config", "/etc/musicvoting.conf", "--port", "9000", "--library=/music"],
            environment: ["MUSICVOTING_YOUTUBE_KEY": "from-env", "MUSICVOTING_PORT": "8000"],
            readFile: { $0 == "/etc/musicvoting.conf" ? file : nil })
        #expect(configuration.port == 9000)
        #expect(configuration.youtubeKey == "from-env")
        #expect(configuration.dataDirectory == "/srv/party" && configuration.spotifyClientId == "file-client")
        #expect(configuration.libraryDirectory == "/music")
    }

    @Test func mistakesAreReportedNotIgnored() {
        #expect(throws: Configuration.ParseError.unknownOption("--prot")) { try Configuration.parse(arguments: ["--prot", "1"], environment: [:]) }
        #expect(throws: Configuration.ParseError.invalidValue(option: "--port", value: "99999")) {
            try Configuration.parse(arguments: ["--port", "99999"], environment: [:])
        }
        #expect(throws: Configuration.ParseError.invalidValue(option: "--config", value: "colour = blue")) {
            try Configuration.parse(arguments: ["--config", "f"], environment: [:], readFile: { _ in "colour = blue" })
        }
        #expect(throws: Configuration.ParseError.invalidValue(option: "--config", value: "missing")) {
            try Configuration.parse(arguments: ["--config", "missing"], environment: [:], readFile: { _ in nil })
        }
        #expect(throws: Configuration.ParseError.help) { try Configuration.parse(arguments: ["--help"], environment: [:]) }
        #expect(throws: Configuration.ParseError.invalidValue(option: "--spotify-api-base", value: "ftp://x")) {
            try Configuration.parse(arguments: ["--spotify-api-base", "ftp://x"], environment: [:])
        }
    }
}

@Suite("Each option is declared once")
struct ConfigurationOptionTableTests {
    @Test func helpEnvironmentConfigFileAndHostingGuideComeFromOneTable() throws {
        for option in ConfigurationOption.all {
            #expect(Configuration.usage.contains(option.flag + " ") && Configuration.usage.contains(option.environment), "\(option.flag)")
        }
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let hostingGuide = try String(contentsOfFile: root.appendingPathComponent("docs/hosting.md").path, encoding: .utf8)
        #expect(hostingGuide.contains(Configuration.markdownTable), "docs/hosting.md's option table is `musicvoting --help-markdown`")
        let operations = try String(contentsOfFile: root.appendingPathComponent("docs/operations.md").path, encoding: .utf8)
        #expect(operations.contains(Configuration.operationsMarkdownTable), "docs/operations.md's option table is the second of `--help-markdown`")
        // Every option works as a flag, as its environment variable and as a config-file key.
        let sample = ["max-parties": "7", "threads": "3", "allowed-host": "a.lan", "youtube-key": "k"]
        for (name, value) in sample {
            let option = try #require(ConfigurationOption.all.first { $0.name == name })
            let fromFlag = try Configuration.parse(arguments: [option.flag, value], environment: [:])
            let fromEnvironment = try Configuration.parse(arguments: [], environment: [option.environment: value])
            let fromFile = try Configuration.parse(arguments: ["--config", "f"], environment: [:], readFile: { _ in "\(name) = \(value)" })
            #expect(fromFlag == fromEnvironment && fromEnvironment == fromFile && fromFlag != Configuration(), "\(name)")
        }
    }
}
