import Foundation
import PartyTestSupport
import Testing

@Suite("R26 bad input never yields a 5xx", .alsoOnRoundRobinCluster)
struct RobustnessTests {
    /// The body cap and odd paths are the socket's (libmicrohttpd reads and URL-decodes them); the routes' answers to
    /// bad bodies are `APIContractTests/RobustnessRoutesTests`.
    @Test func oversizedBodiesAndOddPathsAnswer4xxAndTheServerLivesOn() throws {
        let party = try TestParty.given(.live)
        let huge = "[" + String(repeating: "\"demo:track:1\",", count: 8000) + "\"x\"]"
        let tooLarge = try party.client.send("POST", "\(party.base)/track/addToPlaylist", raw: huge)
        #expect(tooLarge.status == 413 && tooLarge.error == "Request body too large", "\(tooLarge)")
        // A body up to 1 MiB is read and dropped before the 413: the same connection answers the next request.
        let kept = try Connection(port: party.client.port)
        let path = "\(party.base)/track/addToPlaylist"
        try kept.write(Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(party.client.port)\r\nContent-Length: \(huge.utf8.count)\r\n\r\n\(huge)".utf8))
        let first = try kept.readResponse(method: "POST")
        try kept.write(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:\(party.client.port)\r\nConnection: close\r\n\r\n".utf8))
        let second = try kept.readResponse(method: "GET")
        #expect(first.status == 413 && second.status == 200, "\(first) then \(second)")
        let overMiB = try Connection(port: party.client.port)
        try overMiB.write(Array("POST \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(party.client.port)\r\nContent-Length: 2000000\r\n\r\n".utf8))
        #expect(try overMiB.readResponse(method: "POST").status == 413, "a larger one is refused before its body")
        let odd = ["/api/party/%00", "/api/party/../../etc/passwd", "/api/party/\(party.id)/track/search?q=%FF%FE",
                   "/api/party/join/" + String(repeating: "9", count: 2000), "/assets/../Package.swift", "/demo/audio/0.wav"]
        for path in odd {
            let response = try party.client.get(path)
            #expect(response.status < 500, "\(path) → \(response.status)")
        }
        #expect(try party.client.get("/healthz").json["status"] as? String == "ok", "the server still answers")
    }
}
