import Foundation
import PartyCore
import PartyStore
import Testing

@Suite("Pages rendered by the real server", .alsoOnRoundRobinCluster)
struct PageTests {
    @Test func theLanguageFollowsAcceptLanguageWithGermanAsTheBase() throws {
        let server = try ServerProcess()
        defer { server.stop() }
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
        let first = try ServerProcess()
        let party = try TestParty(first)
        first.stop()
        let evil = Track(id: "x", uri: "demo:track:x", name: "<img src=x onerror=alert(1)>", artists: ["\"><script>alert(2)</script>"],
                         album: "A&B", imageURL: "javascript:alert(3)\" onerror=\"alert(4)", durationMs: 1000)
        let store = try PartyStore(path: first.dataDirectory + "/musicvoting.sqlite")
        try store.insertEntry(partyId: party.id, track: evil, addedAt: Date(), addedBy: "x", autofilled: false)
        let server = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { server.stop() }
        let page = try server.client.get("/join/\(party.pin)").text
        #expect(page.contains("&lt;img src=x onerror=alert(1)&gt;"))
        #expect(!page.contains("<img src=x"))
        #expect(!page.contains("<script>alert(2)"))
        #expect(page.contains("src=\"javascript:alert(3)&quot; onerror=&quot;alert(4)\""), "attribute cannot be broken out of")
        let json = try server.client.get("\(party.base)/track/queue").text
        #expect(json.contains("\\u003cimg src=x onerror=alert(1)>"), "JSON escapes < as well")
    }
}
