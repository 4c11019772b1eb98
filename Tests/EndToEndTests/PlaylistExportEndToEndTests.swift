import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// R32: the exported playlist is a file a real player opens while the server runs.
@Suite("R32 playlist files against a real player")
struct PlaylistExportEndToEndTests {
    @Test func ffprobeReadsTheFirstSongOfADemoPartysM3U8() throws {
        let party = try TestParty.given(.live)
        for number in [4, 7] {
            _ = try party.client.send("POST", "/api/party/\(party.id)/track/addToPlaylist", json: ["uri": "demo:track:\(number)", "deviceId": "g"])
        }
        let file = try party.host("GET", "/export.m3u8")
        #expect(file.status == 200, "\(file.status) \(file.text)")
        let locations = file.text.split(separator: "\n").filter { !$0.hasPrefix("#") }.map(String.init)
        let first = try #require(locations.first, "\(file.text)")
        #expect(first.hasSuffix("/demo/audio/4.wav") && first.hasPrefix("http"), "\(first)")
        let probe = try runToExit("/usr/bin/ffprobe", ["-v", "error", "-show_entries", "format=format_name,duration", "-of", "json", first])
        #expect(probe.status == 0, "\(probe.output)")
        let answer = try JSONSerialization.jsonObject(with: Data(probe.output.utf8)) as? [String: Any]
        let format = answer?["format"] as? [String: Any]
        #expect(format?["format_name"] as? String == "wav", "\(probe.output)")
        #expect(Double(format?["duration"] as? String ?? "") ?? 0 > 1, "\(probe.output)")
    }
}
