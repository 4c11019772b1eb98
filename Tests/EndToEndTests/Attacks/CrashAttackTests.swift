import Foundation
import PartyTestSupport
import Testing

/// No unauthenticated request may crash the server: numbers at and past the integer edges (`number - 1`) are parsed with bounds.
@Suite("Attack: no request crashes the server (R24b)", .alsoOnRoundRobinCluster)
struct CrashAttackTests {
    static let edgeNumbers = ["-9223372036854775808", "9223372036854775807", "-9223372036854775809",
                              "99999999999999999999", "-1", "0", "-0", "25", "NaN", "1e309", "+1", "01", "%2D1"]

    @Test func hostileDemoNumbersInPathsAndUrisAnswer4xx() throws {
        let party = try TestParty.given()
        for number in Self.edgeNumbers {
            for path in ["/demo/audio/\(number).wav", "/demo/cover/\(number).svg", "/demo/cover/\(number).png", "\(party.base)/track/\(number)"] {
                let response = try party.client.get(path)
                #expect(response.status == 404 && response.error != nil, "\(path) → \(response.status)")
            }
            let add = try party.client.send("POST", "\(party.base)/track/addToPlaylist",
                                            json: ["uri": "demo:track:\(number)", "deviceId": "guest-edge"])
            #expect((400..<500).contains(add.status) && add.error != nil, "add \(number) → \(add.status)")
        }
        #expect(try party.client.get("/healthz").status == 200, "the server survived every request")
        #expect(try party.add(1).status == 200, "and still takes songs")
    }
}
