import Foundation
import PartyCore
import Testing

@Suite("R24b numbers are parsed with bounds")
struct NumberBoundsTests {
    @Test func saturatingConversionClampsWhatIntWouldTrapOn() {
        #expect(Int(saturating: .nan) == 0)
        #expect(Int(saturating: .infinity) == .max && Int(saturating: -.infinity) == .min)
        // A client's "1e309" parses to infinity.
        #expect(Int(saturating: Double("1e309") ?? 0) == .max && Int(saturating: -1e30) == .min)
        #expect(Int(saturating: 9.3e18) == .max)
        #expect(Int(saturating: 12.9) == 12 && Int(saturating: -12.9) == -12 && Int(saturating: -0.0) == 0)
    }

    @Test func boundedDigitsAcceptOnlyPlainDigitsInRange() {
        #expect(Int(boundedDigits: "42", in: 1...100) == 42)
        for hostile in ["-9223372036854775808", "9223372036854775807", "-1", "+5", "", " 5", "5 ", "1e2", "0x10",
                        "101", "0", String(repeating: "9", count: 20), "٣"] {
            #expect(Int(boundedDigits: hostile, in: 1...100) == nil, "\(hostile)")
        }
        #expect(Int(boundedDigits: "0000000042", in: 1...100, maxDigits: 9) == nil, "too many digits")
    }

    @Test func aPlaybackStartedAtAnAbsurdDateDoesNotTrap() {
        let playback = Playback(currentEntryId: 1, startedAt: Date(timeIntervalSince1970: -1e300), isPlaying: true)
        #expect(playback.positionMs(at: Date()) == .max)
    }
}

@Suite("Track text is capped")
struct TrackCapTests {
    /// A 200 kB title once overflowed every event stream of the party.
    @Test func titlesArtistsAndAlbumsKeepAtMost500Characters() {
        let huge = String(repeating: "ä", count: 200_000)
        let track = Track(id: "1", uri: "x:1", name: huge, artists: Array(repeating: huge, count: 50), album: huge,
                          imageURL: "https://" + huge, durationMs: -5)
        #expect(track.name.count == Track.maxTextLength && track.name.hasSuffix("…"))
        #expect(track.artists.count == Track.maxArtists && track.artists.allSatisfy { $0.count == Track.maxTextLength })
        #expect(track.album.count == Track.maxTextLength && track.imageURL == nil && track.durationMs == 0)
        let normal = Track(id: "1", uri: "x:1", name: "Song", artists: ["A"], album: "B", imageURL: "/c.png", durationMs: 1)
        #expect(normal.name == "Song" && normal.imageURL == "/c.png")
    }
}
