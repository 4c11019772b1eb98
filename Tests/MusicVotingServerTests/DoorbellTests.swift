import Foundation
import PartyStore
import PartyTestSupport
import Synchronization
import Testing
import TestSupport
@testable import PartyEngine

/// The ring a commit carries (`Doorbell.ringAtCommit`): its events in the payload, at most one every 20 ms, and none
/// while PostgreSQL's notification queue fills (a full queue fails a notifying commit, so a like would fail).
@Suite("Doorbell rings with commits")
struct DoorbellTests {
    /// A database session that only answers how full the notification queue is.
    final class QueueSession: DoorbellSession, @unchecked Sendable {
        let usage = Mutex(0.0)
        let checks = Atomic(0)
        private var listening = false
        var socket: Int32 { -1 }
        var isListening: Bool { listening }
        func listen() throws -> Bool? { defer { listening = true }; return !listening }
        func receive() throws -> [String] { [] }
        func notify(_ payloads: [String]) throws {}
        func events(partyId: String, after sequence: Int64, limit: Int) throws -> [LoggedEvent] { [] }
        func lastEventSequences(partyIds: [String]) throws -> [String: Int64] { [:] }
        func notificationQueueUsage() throws -> Double {
            checks.add(1, ordering: .relaxed)
            return usage.withLock { $0 }
        }

        /// Waits for the doorbell's next check of the queue (its poll, every 2 s).
        func nextCheck() -> Bool {
            let seen = checks.load(ordering: .relaxed)
            return eventually(timeout: 5) { self.checks.load(ordering: .relaxed) > seen }
        }
    }

    static func event(_ kind: EventKind, sequence: Int64, audience: Audience? = nil) -> ServerEvent {
        var event = ServerEvent(kind: kind, partyId: "party1", audience: audience, at: Date(timeIntervalSince1970: 1_800_000_000))
        event.sequence = sequence
        return event
    }

    @Test func aCommitCarriesItsEventsAtMostEveryTwentyMillisecondsAndNotWhileTheQueueFills() throws {
        let session = QueueSession()
        let doorbell = try Doorbell(session: session, hub: EventHub(clock: ManualClock(Date())))
        defer { doorbell.stop() }
        #expect(eventually(timeout: 5) { session.checks.load(ordering: .relaxed) > 0 }, "the queue is checked when the doorbell starts")
        let settings = Self.event(.queueUpdated(.settings), sequence: 7)
        let scoped = Self.event(.queueUpdated(.settings), sequence: 8, audience: Audience(source: "ios", installationId: "i1"))
        let live = ServerEvent(kind: .queueUpdated(.settings), partyId: "party1", at: Date())
        #expect(doorbell.ringAtCommit([live][...]) == nil, "nothing logged, nothing to ring")

        let payload = try #require(doorbell.ringAtCommit([settings, scoped][...]))
        let lines = payload.split(separator: "\n").map(String.init)
        #expect(lines.count == 3 && lines[0].hasSuffix(" log"), "\(payload)")
        #expect(lines[1] == "party1 7 queue-updated " + settings.message, "the event as its streams get it: \(lines[1])")
        #expect(lines[2] == "party1 8", "an event for one audience only by its number (read from the log): \(lines[2])")
        #expect(doorbell.ringAtCommit([settings][...]) == nil, "the next commit within 20 ms rings after it, with the others")
        Thread.sleep(forTimeInterval: Doorbell.coalescing * 1.5)
        #expect(doorbell.ringAtCommit([settings][...]) != nil)

        session.usage.withLock { $0 = Doorbell.queueLimit }
        #expect(session.nextCheck())
        Thread.sleep(forTimeInterval: Doorbell.coalescing * 1.5)
        #expect(doorbell.ringAtCommit([settings][...]) == nil, "the queue fills: no commit rings")
        session.usage.withLock { $0 = 0 }
        #expect(session.nextCheck())
        #expect(doorbell.ringAtCommit([settings][...]) != nil, "read again: commits ring")
    }
}
