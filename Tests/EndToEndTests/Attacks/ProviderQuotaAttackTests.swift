import Foundation
import HTTPServer
import Synchronization
import Testing

/// Issue 10, item 5: searches spent the party's YouTube quota, and a slow upstream starved every client.
@Suite("Attack: provider quota and threads", .serialized)
struct ProviderQuotaAttackTests {
    /// The YouTube fake of both quota suites: queries starting with "slow" take `slowSeconds`, like an overloaded
    /// upstream; video ids starting with "zz" do not exist.
    static func fakeYouTube(slowSeconds: TimeInterval = 1) throws -> FakeService {
        try FakeService { router, _ in
            router.add("GET", "/youtube/v3/search") { request in
                if request.query["q"]?.hasPrefix("slow") == true { Thread.sleep(forTimeInterval: slowSeconds) }
                return FakeService.json("youtube/search")
            }
            router.add("GET", "/youtube/v3/videos") { request in
                if request.query["chart"] == "mostPopular" { return FakeService.json("youtube/charts") }
                if request.query["id"]?.hasPrefix("zz") == true { return .json(["items": .array([])]) }
                return FakeService.json("youtube/videos")
            }
        }
    }

    static func searches(_ fake: FakeService) -> Int { fake.requests.filter { $0.path.hasSuffix("/search") }.count }

    @Test func uncachedSearchesAreLimitedPerGuestAndPerPartyCachedOnesNever() throws {
        let youtube = try Self.fakeYouTube()
        defer { youtube.stop() }
        let server = try ServerProcess(arguments: ["--youtube-key", "k", "--youtube-api-base", youtube.base + "/youtube/v3"])
        defer { server.stop() }
        let party = try TestParty(server, provider: "youtube")
        let guest = party.client.from("127.0.8.1")
        for index in 0..<15 { #expect(try guest.get("\(party.base)/track/search?q=lied\(index)").status == 200) }
        let over = try guest.get("\(party.base)/track/search?q=lied15")
        #expect(over.status == 429 && over.error == "Zu viele Suchen — bitte kurz warten." && over.header("retry-after") != nil)
        #expect(try guest.get("\(party.base)/track/search?q=lied3").status == 200, "a cached search costs nothing")
        #expect(Self.searches(youtube) == 15, "the service saw only the admitted searches")
        // The party's budget of 40 from all guests together.
        var admitted = 0
        for phone in 2...4 {
            for index in 0..<15 where try party.client.from("127.0.8.\(phone)").get("\(party.base)/track/search?q=p\(phone)x\(index)").status == 200 {
                admitted += 1
            }
        }
        #expect(admitted == 25, "15 + 25 = the party's 40 a minute")
    }

    @Test func aSlowUpstreamFailsFastInsteadOfStarvingCachedSearches() throws {
        let youtube = try Self.fakeYouTube()
        defer { youtube.stop() }
        let server = try ServerProcess(arguments: ["--youtube-key", "k", "--youtube-api-base", youtube.base + "/youtube/v3"])
        defer { server.stop() }
        let party = try TestParty(server, provider: "youtube")
        #expect(try party.client.get("\(party.base)/track/search?q=warm").status == 200)

        let statuses = Mutex<[Int: Int]>([:])
        let fastFailures = Atomic(0)
        let group = DispatchGroup()
        let client = party.client, base = party.base
        for index in 0..<30 {
            group.enter()
            Thread {
                let started = Date()
                let status = (try? client.from("127.0.9.\(index + 1)").get("\(base)/track/search?q=slow\(index)").status) ?? 0
                if status == 503 && Date().timeIntervalSince(started) < 0.5 { fastFailures.add(1, ordering: .relaxed) }
                statuses.withLock { $0[status, default: 0] += 1 }
                group.leave()
            }.start()
        }
        Thread.sleep(forTimeInterval: 0.3)
        let started = Date()
        let cached = try party.client.get("\(party.base)/track/search?q=warm")
        let cachedSeconds = Date().timeIntervalSince(started)
        group.wait()
        let counts = statuses.withLock { $0 }
        #expect(cached.status == 200 && cachedSeconds < 1, "a cached search answers at once (\(cachedSeconds) s; it took 72 s)")
        // The upstream answers one search a second: with 8 in flight, the others must have been refused.
        #expect(counts[503, default: 0] >= 15 && fastFailures.load(ordering: .relaxed) == counts[503, default: 0],
                "past 8 calls in flight the rest fail fast with 503: \(counts)")
        #expect(counts[200, default: 0] + counts[503, default: 0] == 30, "\(counts)")
        let busy = try party.client.from("127.0.9.200").get("\(party.base)/track/search?q=after")
        #expect(busy.status == 200 || busy.status == 503)
    }
}
