import PartyCore
import Testing
@testable import Providers

@Suite("Demo provider")
struct DemoProviderTests {
    let provider = DemoProvider()

    @Test func theCatalogHasAtLeastTwentyCompleteTracks() {
        #expect(DemoCatalog.tracks.count >= 20)
        for track in DemoCatalog.tracks {
            #expect(!track.name.isEmpty && !track.artists.isEmpty && !track.album.isEmpty && track.imageURL != nil)
            #expect(track.durationMs >= 20_000)
        }
        #expect(Set(DemoCatalog.tracks.map(\.uri)).count == DemoCatalog.tracks.count)
    }

    @Test func anEmptyQueryAnswersTheTopTen() throws {
        #expect(try provider.search("").count == 10)
        #expect(try provider.search("   ").count == 10)
    }

    @Test func searchCoversTitleArtistAndAlbumIgnoringCaseAndAccents() throws {
        #expect(try provider.search("neon").map(\.name) == ["Neon Boulevard"])
        #expect(try provider.search("LICHTERKETTEN").count == 3)
        #expect(try provider.search("spatdienst").count == 3, "album, accent-insensitive")
        #expect(try provider.search("zzz-nothing").isEmpty)
    }

    @Test func tracksResolveOnlyFromTheirOwnUris() throws {
        #expect(try provider.track(uri: "demo:track:3")?.name == "Tanz auf dem Dach")
        for uri in ["demo:track:0", "demo:track:99", "demo:track:03", "spotify:track:3", "demo:track:", "demo:track:3/"] {
            #expect(try provider.track(uri: uri) == nil, "\(uri)")
        }
        #expect(provider.uri(forTrackId: "3") == "demo:track:3")
    }

    @Test func audioLastsExactlyTheCatalogDuration() throws {
        let wav = try #require(DemoAudio.wav(number: 2))
        let dataSize = wav[40..<44].enumerated().reduce(0) { $0 | Int($1.element) << (8 * $1.offset) }
        #expect(dataSize == DemoCatalog.tracks[1].durationMs / 1000 * 16_000)
        #expect(wav.count == 44 + dataSize)
        #expect(DemoAudio.wav(number: 0) == nil)
        #expect(Set(wav[44...].prefix(32_000)).count > 20, "not silence")
    }

    @Test func coversAreSVGWithEscapedText() throws {
        let svg = try #require(DemoCover.svg(number: 6))
        #expect(svg.hasPrefix("<svg") && svg.contains("G&amp;"), "Glitter & Gravel → escaped initials")
        #expect(DemoCover.svg(number: 100) == nil)
    }

    @Test func playlistsAreTheAlbums() throws {
        let playlists = try provider.playlists()
        #expect(playlists.count >= 5)
        let first = try #require(playlists.first)
        #expect(try provider.playlistTracks(id: first.id).count == first.trackCount)
        #expect(try provider.playlistTracks(id: "nope").isEmpty)
    }

    @Test func unconfiguredProvidersSayNotConfigured() {
        let spotify = UnconfiguredProvider(name: "spotify")
        #expect(!spotify.isConfigured)
        #expect(throws: ProviderError.notConfigured) { try spotify.search("x") }
        #expect(throws: ProviderError.notConfigured) { try spotify.track(uri: "spotify:track:x") }
    }
}

@Suite("YouTube durations")
struct ISODurationTests {
    @Test func iso8601DurationsBecomeMilliseconds() {
        #expect(ISODuration.milliseconds("PT4M13S") == 253_000)
        #expect(ISODuration.milliseconds("PT1H2M3S") == 3_723_000)
        #expect(ISODuration.milliseconds("PT45S") == 45_000)
        #expect(ISODuration.milliseconds("PT3M") == 180_000)
        #expect(ISODuration.milliseconds("P1DT2S") == 86_402_000)
        #expect(ISODuration.milliseconds("PT0.5S") == 500)
        #expect(ISODuration.milliseconds("P0D") == 0)
        for broken in ["", "4M13S", "PT", "PTXS", "PT4X", "PT1M2"] { #expect(ISODuration.milliseconds(broken) == nil, "\(broken)") }
    }

    /// `P9999999999999999W` from a hostile or broken upstream trapped converting to Int.
    @Test func absurdDurationsAreRefusedInsteadOfCrashing() {
        for absurd in ["P9999999999999999W", "PT1e400S", "P99999999999999999999999999999999999999D", "PT9999999999999999999S",
                       "P31D", "PT\(String(repeating: "9", count: 400))S"] {
            #expect(ISODuration.milliseconds(absurd) == nil, "\(absurd.prefix(30))")
        }
        #expect(ISODuration.milliseconds("P30D") == 2_592_000_000, "the longest duration still accepted")
    }
}

@Suite("Hostile demo numbers")
struct DemoBoundsTests {
    static let hostile = ["-9223372036854775808", "9223372036854775807", "-1", "0", "25", "+1", "01", " 1", "1 ",
                          "99999999999999999999", "", "1e3", "0x1", "１"]

    @Test func hostileNumbersFindNoSongAndDoNotTrap() {
        for text in Self.hostile {
            #expect(DemoCatalog.validNumber(text) == nil, "\(text)")
            #expect(DemoCatalog.number(of: "demo:track:" + text) == nil, "\(text)")
            #expect((try? DemoProvider().track(uri: "demo:track:" + text)) == nil, "\(text)")
        }
        for number in [Int.min, Int.min + 1, -1, 0, 25, Int.max] {
            #expect(DemoAudio.wav(number: number) == nil, "\(number)")
            #expect(DemoCover.svg(number: number) == nil, "\(number)")
        }
        #expect(DemoCatalog.validNumber("24") == 24 && DemoCatalog.validNumber("1") == 1)
        #expect(DemoCover.svg(number: 24) != nil)
    }
}
