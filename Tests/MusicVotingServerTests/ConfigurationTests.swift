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
