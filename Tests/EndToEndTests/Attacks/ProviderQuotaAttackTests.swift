import Foundation
import HTTPServer
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// Searches must not spend the party's YouTube quota for everyone, and a slow upstream must not starve other clients.
@Suite("Attack: provider quota and threads", .serialized)
struct ProviderQuotaAttackTests {
    /// Counts the slow searches the fake has answered, so a test can tell what came before the first of them.
    final class SlowUpstream: Sendable {
        let answered = Atomic(0)
    }

    /// The YouTube fake of both quota suites: queries starting with "slow" take `slowSeconds` each, like an
    /// overloaded upstream; video ids starting with "zz" do not exist.
    static func fakeYouTube(_ upstream: SlowUpstream = SlowUpstream(), slowSeconds: TimeInterval = 1) throws -> FakeService {
        try FakeService { router, _ in
            router.add("GET", "/youtube/v3/search") { request in
                if request.query["q"]?.hasPrefix("slow") == true {
                    Thread.sleep(forTimeInterval: slowSeconds)
                    upstream.answered.add(1, ordering: .sequentiallyConsistent)
                }
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

    /// Fail fast as an order of events, not a clock: the fake records how many slow searches it has answered, and
    /// every 503 arrives before the first of them; a cached search answers while held ones are still unanswered.
    @Test func aSlowUpstreamFailsFastInsteadOfStarvingCachedSearches() throws {
        let upstream = SlowUpstream()
        let youtube = try Self.fakeYouTube(upstream)
        defer { youtube.stop() }
        let server = try ServerProcess(arguments: ["--youtube-key", "k", "--youtube-api-base", youtube.base + "/youtube/v3"])
        defer { server.stop() }
        let party = try TestParty(server, provider: "youtube")
        #expect(try party.client.get("\(party.base)/track/search?q=warm").status == 200)

        let statuses = Mutex<[Int: Int]>([:])
        let refusedBeforeUpstreamAnswered = Atomic(0)
        let group = DispatchGroup()
        let client = party.client, base = party.base
        // The 30 searches leave together once every thread runs: started one by one on a busy machine, the last
        // could leave after the first slow answer.
        let start = DispatchSemaphore(value: 0)
        for index in 0..<30 {
            group.enter()
            Thread {
                start.wait()
                let response = try? client.from("127.0.9.\(index + 1)").get("\(base)/track/search?q=slow\(index)")
                let status = response?.status ?? 0
                if status == 503 && upstream.answered.load(ordering: .sequentiallyConsistent) == 0 {
                    refusedBeforeUpstreamAnswered.add(1, ordering: .sequentiallyConsistent)
                }
                statuses.withLock { $0[status, default: 0] += 1 }
                group.leave()
            }.start()
        }
        for _ in 0..<30 { start.signal() }
        #expect(eventually { statuses.withLock { $0[503, default: 0] } >= 15 }, "the searches past those in flight are refused")
        let cached = try party.client.get("\(party.base)/track/search?q=warm")
        let answeredAtCached = upstream.answered.load(ordering: .sequentiallyConsistent)
        let refused = statuses.withLock { $0[503, default: 0] }
        #expect(cached.status == 200 && answeredAtCached < 30 - refused,
                "a cached search answers while held searches still wait upstream (\(answeredAtCached) answered; it took 72 s)")
        group.wait()
        let counts = statuses.withLock { $0 }
        #expect(counts[503, default: 0] >= 15, "past the calls in flight the rest fail with 503: \(counts)")
        #expect(refusedBeforeUpstreamAnswered.load(ordering: .sequentiallyConsistent) == counts[503, default: 0],
                "every 503 came before the slow upstream answered its first search: \(counts)")
        #expect(counts[200, default: 0] == upstream.answered.load(ordering: .sequentiallyConsistent), "the held ones get their answer")
        #expect(counts[200, default: 0] + counts[503, default: 0] == 30, "\(counts)")
        let busy = try party.client.from("127.0.9.200").get("\(party.base)/track/search?q=after")
        #expect(busy.status == 200 || busy.status == 503)
    }
}
