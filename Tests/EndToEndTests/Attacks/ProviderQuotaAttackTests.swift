import Foundation
import HTTPServer
import Synchronization
import Testing

/// Issue 10, item 5: searches spent the party's YouTube quota, and a slow upstream starved every client.
@Suite("Attack: provider quota and threads", .serialized)
struct ProviderQuotaAttackTests {
    /// An upstream that holds every query starting with "slow" until the test lets it answer, and counts them.
    final class StuckUpstream: Sendable {
        let open = Atomic(false)
        /// Slow searches that reached the fake and wait for `open`.
        let waiting = Atomic(0)
        /// Slow searches the fake has answered.
        let answered = Atomic(0)
    }

    /// The YouTube fake; queries starting with "slow" wait at `upstream`'s gate, like an overloaded upstream. They
    /// wait as deferred responses, so the held ones wait side by side, not in line on the fake's one thread.
    static func fakeYouTube(_ upstream: StuckUpstream = StuckUpstream()) throws -> FakeService {
        try FakeService { router, _ in
            router.add("GET", "/youtube/v3/search") { request in
                guard request.query["q"]?.hasPrefix("slow") == true else { return FakeService.json("youtube/search") }
                upstream.waiting.add(1, ordering: .sequentiallyConsistent)
                return .deferred {
                    while !upstream.open.load(ordering: .sequentiallyConsistent) { Thread.sleep(forTimeInterval: 0.01) }
                    upstream.answered.add(1, ordering: .sequentiallyConsistent)
                    return FakeService.json("youtube/search")
                }
            }
            router.add("GET", "/youtube/v3/videos") { request in
                request.query["chart"] == "mostPopular" ? FakeService.json("youtube/charts") : FakeService.json("youtube/videos")
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

    /// Fail fast, without a clock: the upstream answers nothing until every refused search has its 503 and a
    /// cached search has its 200, so each of them arrived before the slow upstream answered.
    @Test func aStuckUpstreamFailsFastInsteadOfStarvingCachedSearches() throws {
        let upstream = StuckUpstream()
        let youtube = try Self.fakeYouTube(upstream)
        defer { youtube.stop() }
        defer { upstream.open.store(true, ordering: .sequentiallyConsistent) }
        let server = try ServerProcess(arguments: ["--youtube-key", "k", "--youtube-api-base", youtube.base + "/youtube/v3"])
        defer { server.stop() }
        let party = try TestParty(server, provider: "youtube")
        #expect(try party.client.get("\(party.base)/track/search?q=warm").status == 200)

        let statuses = Mutex<[Int: Int]>([:])
        let answeredBeforeUpstream = Atomic(0)
        let group = DispatchGroup()
        let client = party.client, base = party.base
        for index in 0..<30 {
            group.enter()
            Thread {
                let status = (try? client.from("127.0.9.\(index + 1)").get("\(base)/track/search?q=slow\(index)").status) ?? 0
                if upstream.answered.load(ordering: .sequentiallyConsistent) == 0 { answeredBeforeUpstream.add(1, ordering: .sequentiallyConsistent) }
                statuses.withLock { $0[status, default: 0] += 1 }
                group.leave()
            }.start()
        }
        // Every search is either answered or held upstream; none has been let through yet.
        let settled = eventually {
            statuses.withLock { $0.values.reduce(0, +) } + upstream.waiting.load(ordering: .sequentiallyConsistent) == 30
        }
        #expect(settled, "each search was answered or reached the upstream: \(statuses.withLock { $0 })")
        let cached = try party.client.get("\(party.base)/track/search?q=warm")
        #expect(cached.status == 200, "a cached search answers while the upstream is stuck (it took 72 s): \(cached)")
        let refusedWhileStuck = statuses.withLock { $0 }
        #expect(upstream.answered.load(ordering: .sequentiallyConsistent) == 0, "the upstream has answered nothing so far")
        upstream.open.store(true, ordering: .sequentiallyConsistent)
        group.wait()
        let counts = statuses.withLock { $0 }

        #expect(refusedWhileStuck[503, default: 0] >= 15 && refusedWhileStuck.keys.allSatisfy { $0 == 503 },
                "past the calls in flight the rest fail with 503 before the upstream answers: \(refusedWhileStuck)")
        #expect(answeredBeforeUpstream.load(ordering: .sequentiallyConsistent) == counts[503, default: 0],
                "every 503 came before the upstream answered anything: \(counts)")
        #expect(counts[200, default: 0] == upstream.waiting.load(ordering: .sequentiallyConsistent) && counts[200, default: 0] > 0,
                "the searches held upstream are answered once it answers: \(counts)")
        #expect(counts[200, default: 0] + counts[503, default: 0] == 30, "\(counts)")
        let busy = try party.client.from("127.0.9.200").get("\(party.base)/track/search?q=after")
        #expect(busy.status == 200 || busy.status == 503)
    }
}
