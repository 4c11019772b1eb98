import Foundation
import PartyCore
import PartyStore
import PartyTestSupport
import Testing

/// The pages as the server renders them: language, scripts and headers, the guest page before any script runs,
/// provider text escaped.
@Suite("Pages rendered by the server")
struct PageRoutesTests {
    @Test func theLanguageFollowsAcceptLanguageWithGermanAsTheBase() throws {
        let server = try InProcessServer()
        let german = try server.client.get("/", headers: ["Accept-Language": "de-DE,de;q=0.9"])
        #expect(german.status == 200 && german.header("content-type")?.hasPrefix("text/html") == true)
        #expect(german.text.contains("<html lang=\"de\">") && german.text.contains("Party beitreten"))
        let english = try server.client.get("/", headers: ["Accept-Language": "fr-FR, en-GB;q=0.8, de;q=0.5"])
        #expect(english.text.contains("<html lang=\"en\">") && english.text.contains("Join a party"))
        #expect(english.header("content-language") == "en")
        let unknown = try server.client.get("/", headers: ["Accept-Language": "ja-JP"])
        #expect(unknown.text.contains("<html lang=\"de\">"))
        let none = try server.client.get("/")
        #expect(none.text.contains("<html lang=\"de\">"))
        // `app.name` has no English entry: the German text stands in, never the key.
        #expect(english.text.contains("<h1>MusicVoting</h1>"))
        #expect(!english.text.contains("app.name<") && !english.text.contains("{{"))
    }

    @Test func everyPageRendersWithItsScriptAndSafeHeaders() throws {
        let party = try TestParty.given()
        for (path, name) in [("/", "start"), ("/join/\(party.pin)", "guest"), ("/monitor", "monitor"), ("/host", "host")] {
            let page = try party.client.get(path)
            #expect(page.status == 200, "\(path)")
            let script = try #require(page.text.firstMatch(of: #/src="(/assets/v-[0-9a-z]+/js/pages/[a-z]+\.js)"/#)?.1, "\(path)")
            #expect(script.hasSuffix("/\(name).js"))
            #expect(try party.client.get(String(script)).header("content-type")?.hasPrefix("text/javascript") == true)
            #expect(page.header("content-security-policy")?.contains("script-src 'self'") == true)
            #expect(page.header("referrer-policy") == "strict-origin-when-cross-origin", "never no-referrer (YouTube error 153)")
        }
        let browser = try party.client.get("/no/such/page", headers: ["Accept": "text/html,*/*;q=0.8", "Accept-Language": "en"])
        #expect(browser.status == 404 && browser.header("content-type")?.hasPrefix("text/html") == true)
        #expect(browser.text.contains("<html lang=\"en\">") && browser.text.contains("<title>Page not found – MusicVoting</title>"))
        let script = try party.client.get("/no/such/page")
        #expect(script.status == 404 && script.header("content-type")?.hasPrefix("application/json") == true, "API clients keep JSON")
        let missing = try party.client.get("/join/99999")
        #expect(missing.status == 404 && missing.text.contains("Diese Party gibt es nicht (mehr)."))
    }

    @Test func theGuestPageShowsQueueAndNowPlayingBeforeAnyScriptRuns() throws {
        let party = try TestParty.given()
        _ = try party.registerMonitor()
        try party.add(3)
        try party.add(4)
        let page = try party.client.get("/join/\(party.pin)").text
        #expect(page.contains("id=\"now-title\">Tanz auf dem Dach</p>"))
        #expect(page.contains("/ <span id=\"now-duration\">0:30</span>"))
        #expect(page.contains("<span class=\"track-name\">Paper Planes at Noon</span>"))
        #expect(page.contains("id=\"queue-empty\" hidden"))
    }

    @Test func providerTextIsEscapedNeverMarkup() throws {
        let first = try InProcessServer()
        let party = try TestParty(first)
        let evil = Track(id: "x", uri: "demo:track:x", name: "<img src=x onerror=alert(1)>", artists: ["\"><script>alert(2)</script>"],
                         album: "A&B", imageURL: "javascript:alert(3)\" onerror=\"alert(4)", durationMs: 1000)
        let store = try PartyStore(path: first.dataDirectory + "/musicvoting.sqlite")
        try store.insertEntry(partyId: party.id, track: evil, addedAt: Date(), addedBy: "x", autofilled: false)
        let server = try InProcessServer(restarting: first)
        let page = try server.client.get("/join/\(party.pin)").text
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains("<script>alert(2)"))
        #expect(page.contains("src=\"javascript:alert(3)&quot; onerror=&quot;alert(4)\""), "attribute cannot be broken out of")
        let json = try server.client.get("\(party.base)/track/queue").text
        #expect(json.contains("\\u003cimg src=x onerror=alert(1)>"), "JSON escapes < as well")
    }
}

@Suite("Static files and audio")
struct AssetRoutesTests {
    @Test func staticFilesHaveContentTypesAndETags() throws {
        let server = try InProcessServer()
        let file = try server.client.get("/assets/css/app.css")
        #expect(file.status == 200 && file.header("content-type")?.hasPrefix("text/css") == true)
        let etag = try #require(file.header("etag"))
        let cached = try server.client.get("/assets/css/app.css", headers: ["If-None-Match": etag])
        #expect(cached.status == 304 && cached.body.isEmpty)
    }

    @Test func textAssetsAreGzippedAndVersionedURLsAreImmutable() throws {
        let server = try InProcessServer()
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
        let server = try InProcessServer()
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
        let server = try InProcessServer()
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
