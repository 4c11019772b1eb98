import Foundation
import Testing

@Suite("R26 bad input never yields a 5xx", .alsoOnRoundRobinCluster)
struct RobustnessTests {
    /// The body cap and odd paths are the socket's (libmicrohttpd reads and URL-decodes them); the routes' answers to
    /// bad bodies are `APIContractTests/RobustnessRoutesTests`.
    @Test func oversizedBodiesAndOddPathsAnswer4xxAndTheServerLivesOn() throws {
        let party = try TestParty.given()
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

@Suite("Static files and audio", .alsoOnRoundRobinCluster)
struct AssetTests {
    @Test func staticFilesHaveContentTypesAndETags() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let file = try server.client.get("/assets/css/app.css")
        #expect(file.status == 200 && file.header("content-type")?.hasPrefix("text/css") == true)
        let etag = try #require(file.header("etag"))
        let cached = try server.client.get("/assets/css/app.css", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty)
    }

    @Test func textAssetsAreGzippedAndVersionedURLsAreImmutable() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let page = try server.client.get("/").text
        let stylesheet = String(try #require(page.firstMatch(of: #/href="(/assets/v-[0-9a-z]+/css/app\.css)"/#)?.1))
        let plain = try server.client.get(stylesheet)
        #expect(plain.header("cache-control") == "public, max-age=31536000, immutable")
        #expect(plain.header("content-encoding") == nil && plain.header("vary") == "Accept-Encoding")
        let gzipped = try server.client.get(stylesheet, headers: ["Accept-Encoding": "br, gzip;q=0.8"])
        #expect(gzipped.header("content-encoding") == "gzip" && gzipped.body.count * 3 < plain.body.count)
        #expect(try Self.gunzip(gzipped.body) == plain.body, "the gzip variant is the same file")
        let gzipTag = try #require(gzipped.header("etag"))
        #expect(gzipTag != plain.header("etag"), "two representations, two entity tags")
        #expect(try server.client.get(stylesheet, headers: ["Accept-Encoding": "gzip", "If-None-Match": gzipTag]).status == 304)
        #expect(try server.client.get(stylesheet, headers: ["Accept-Encoding": "gzip;q=0"]).header("content-encoding") == nil)
        // A range is served from the plain bytes; a bare or outdated path revalidates instead of being cached for a year.
        #expect(try server.client.get(stylesheet, headers: ["Accept-Encoding": "gzip", "Range": "bytes=0-9"]).body == Array(plain.body[0...9]))
        #expect(try server.client.get("/assets/css/app.css").header("cache-control") == "no-cache")
        let outdated = try server.client.get("/assets/v-0ld/css/app.css")
        #expect(outdated.status == 200 && outdated.header("cache-control") == "no-cache" && outdated.body == plain.body)
        // Images are not text: never gzipped.
        #expect(try server.client.get("/demo/cover/1.png", headers: ["Accept-Encoding": "gzip"]).header("content-encoding") == nil)
    }

    @Test func pagesAreGzippedForClientsThatAcceptIt() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let plain = try server.client.get("/", headers: ["Accept-Language": "en"])
        #expect(plain.header("content-encoding") == nil && plain.header("vary") == nil)
        let gzipped = try server.client.get("/", headers: ["Accept-Language": "en", "Accept-Encoding": "gzip, deflate"])
        #expect(gzipped.header("content-encoding") == "gzip" && gzipped.header("vary") == "Accept-Encoding")
        #expect(gzipped.body.count * 3 < plain.body.count)
        #expect(try Self.gunzip(gzipped.body) == plain.body, "the same page")
        // The HTML 404 page too; API answers stay as they are.
        let missing = try server.client.get("/nowhere", headers: ["Accept": "text/html", "Accept-Encoding": "gzip"])
        #expect(missing.status == 404 && missing.header("content-encoding") == "gzip")
        #expect(try server.client.get("/healthz", headers: ["Accept-Encoding": "gzip"]).header("content-encoding") == nil)
    }

    static func gunzip(_ bytes: [UInt8]) throws -> [UInt8] {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/gzip")
        process.arguments = ["-dc"]
        let input = Pipe(), output = Pipe()
        process.standardInput = input
        process.standardOutput = output
        try process.run()
        input.fileHandleForWriting.write(Data(bytes))
        try input.fileHandleForWriting.close()
        let data = output.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return [UInt8](data)
    }

    @Test func demoAudioIsAWaveFileServedWithByteRanges() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let whole = try server.client.get("/demo/audio/1.wav")
        #expect(whole.status == 200 && whole.header("content-type") == "audio/wav")
        #expect(Array(whole.body.prefix(4)) == Array("RIFF".utf8) && Array(whole.body[8..<12]) == Array("WAVE".utf8))
        // 16 kHz, 8-bit mono: bytes per second = 16,000, so the length matches the catalog's 32 s.
        #expect(whole.body.count - 44 == 32 * 16_000)
        let part = try server.client.get("/demo/audio/1.wav", headers: ["Range": "bytes=100-199"])
        #expect(part.status == 206 && part.body.count == 100)
        #expect(part.header("content-range") == "bytes 100-199/\(whole.body.count)")
        #expect(part.body == Array(whole.body[100...199]))
        #expect(try server.client.get("/demo/audio/1.wav", headers: ["Range": "bytes=99999999-"]).status == 416)
        #expect(try server.client.get("/demo/cover/1.svg").header("content-type") == "image/svg+xml")
    }
}
