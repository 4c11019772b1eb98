import Foundation
import PartyCore
import PartyStore
import Testing
@testable import HTTPServer
@testable import MusicVotingServer
@testable import PartyEngine

/// Streams resume from the party's event log, the one code path for replay.
@Suite("Event log through the service")
struct EventLogServiceTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    func makeService() throws -> PartyService {
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-log-\(UUID().uuidString)").path
        return try Application(configuration: configuration, clock: clock).service
    }

    func open(_ service: PartyService, _ party: Party, after lastEventId: Int64?, audience: Audience = Audience(source: "web")) throws -> String {
        let stream = try service.openEventStream(party: party, clientAddress: "10.0.0.1", caller: nil, lastEventId: lastEventId,
                                                 audience: audience) { EventStream(initial: $0) }
        defer { stream.finish() }
        return EventHubTests.drain(stream)
    }

    static func ids(_ text: String) -> [Int64] {
        text.split(separator: "\n").filter { $0.hasPrefix("id: ") }.compactMap { Int64($0.dropFirst(4)) }
    }

    static func types(_ text: String) -> [String] {
        text.split(separator: "\n").filter { $0.hasPrefix("data: ") }.compactMap {
            $0.split(separator: "\"type\":\"").dropFirst().first?.split(separator: "\"").first.map(String.init)
        }
    }

    @Test func aResumingStreamGetsExactlyTheEventsAfterItsId() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1"], deviceId: "a", party: party)
        try service.add(uris: ["demo:track:2"], deviceId: "a", party: party)
        _ = try service.vote(uri: "demo:track:2", deviceId: "b", party: party)
        let fresh = try open(service, party, after: nil)
        #expect(Self.ids(fresh) == [3] && Self.types(fresh).isEmpty, "a fresh stream names the newest id and replays nothing: \(fresh)")
        let resumed = try open(service, party, after: 1)
        #expect(Self.ids(resumed) == [1, 2, 3], "the preamble names the id it resumes after (a replay cut short resumes there), then events 2 and 3")
        #expect(Self.types(resumed) == ["queue-updated", "vote-updated"])
        #expect(try Self.types(open(service, party, after: 3)).isEmpty, "nothing missed")
    }

    @Test func aScopedLoginIsReplayedOnlyToItsAudience() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        service.publishLogin(party: party, source: "ios", installationId: "install-a")
        service.publishLogin(party: party, source: "web", installationId: nil)
        #expect(try Self.types(open(service, party, after: 0, audience: Audience(source: "ios", installationId: "install-a")))
                == ["login-success"])
        #expect(try Self.types(open(service, party, after: 0, audience: Audience(source: "ios", installationId: "install-b"))).isEmpty)
        let web = try open(service, party, after: 0)
        #expect(Self.types(web) == ["login-success"] && web.contains("\"source\":\"web\""))
    }

    @Test func anIdTheLogCannotAnswerIsToldToResync() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        try service.withState { state in
            let events = (0..<1_100).map { _ in LoggedEvent(type: "queue-updated", message: ServerEvent.message(type: "queue-updated", at: state.now, payload: []),
                                                       createdAt: state.now) }
            _ = try state.store.appendEvents(events, partyId: party.id)
        }
        clock.advance(by: EventLog.keptFor + 1)
        try service.add(uris: ["demo:track:1"], deviceId: "a", party: party)
        try service.expireParties()
        let expired = try open(service, party, after: 5)
        #expect(Self.types(expired) == [EventLog.resyncType] && expired.contains("\"reason\":\"expired\""), "\(expired)")
        #expect(Self.ids(expired) == [1_101, 1_101], "it resumes from the newest id next time")
        let future = try open(service, party, after: 5_000)
        #expect(Self.types(future) == [EventLog.resyncType] && future.contains("\"reason\":\"unknown\""))
        #expect(try Self.types(open(service, party, after: 1_100 - 999)).count == 1_000, "the last 1,000 are kept")
        #expect(try Self.types(open(service, party, after: 1_100 - 1_000)) == [EventLog.resyncType])
    }

    /// A replay larger than a stream holds beside its live buffer (`EventLog.replayBytes`) is a `resync` too, though
    /// the events are kept: the client reloads instead of waiting for a replay that does not fit.
    @Test func aReplayLargerThanAStreamHoldsIsToldToResync() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        let padding = String(repeating: "x", count: 500)
        let head = try service.withState { state in
            let events = (0..<600).map { _ in
                LoggedEvent(type: "queue-updated", message: "{\"type\":\"queue-updated\",\"padding\":\"\(padding)\"}", createdAt: state.now)
            }
            return try state.store.appendEvents(events, partyId: party.id).last ?? 0
        }
        let whole = try open(service, party, after: head - 599)
        #expect(Self.types(whole) == [EventLog.resyncType] && whole.contains("\"reason\":\"expired\""), "\(whole.prefix(300))")
        #expect(Self.ids(whole) == [head, head], "it resumes from the newest id next time")
        #expect(Self.ids(try open(service, party, after: head - 100)) == [head - 100] + Array((head - 99)...head))
    }

    /// Writers commit one after another under the state lock but publish after it: a stream still sees the ids in
    /// order, each once, with no gap (`PublishOrder`).
    @Test func concurrentWritersReachAStreamInCommitOrder() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        for number in 1...4 { try service.add(uris: ["demo:track:\(number)"], deviceId: "adder-\(number)", party: party) }
        let stream = try service.openEventStream(party: party, clientAddress: "10.0.0.1", caller: nil, lastEventId: nil) {
            EventStream(capacity: 1 << 20, initial: $0)
        }
        defer { stream.finish() }
        let head = try #require(Self.ids(EventHubTests.drain(stream)).first)
        let likes = 200
        DispatchQueue.concurrentPerform(iterations: likes) { index in
            _ = try? service.vote(uri: "demo:track:\(index % 4 + 1)", deviceId: "liker-\(index)",
                                  clientAddress: "10.\(index / 250 + 1).\(index % 250).1", party: party)
        }
        let ids = Self.ids(EventHubTests.drain(stream))
        #expect(ids == Array((head + 1)...(head + Int64(likes))), "every like once, in order: \(ids.prefix(20))…")
    }

    @Test func progressIsSentLiveWithoutAnIdAndNotLogged() throws {
        let service = try makeService()
        let party = try service.createParty(provider: "demo")
        _ = try service.registerMonitor(deviceId: "tv", caller: .host, party: party, clientAddress: "10.0.0.2")
        try service.add(uris: ["demo:track:1"], deviceId: "a", party: party)
        let live = try service.openEventStream(party: party, clientAddress: "10.0.0.1", caller: nil, lastEventId: nil) { EventStream(initial: $0) }
        defer { live.finish() }
        let head = Self.ids(EventHubTests.drain(live)).first ?? 0
        service.reportProgress(ProgressReport(positionMs: 1_000, durationMs: 30_000, paused: false), party: try service.activeParty(id: party.id))
        let text = EventHubTests.drain(live)
        #expect(Self.types(text).contains("progress") && !text.contains("id: "), "\(text)")
        #expect(try Self.types(open(service, party, after: head)).filter { $0 == "progress" }.isEmpty)
    }
}
