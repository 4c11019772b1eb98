import Foundation
import PartyStore
import PartyTestSupport
import Synchronization
import Testing
import TestSupport
@testable import PartyEngine

/// The ring a commit carries (`Doorbell.ringAtCommit`): its events in the payload, at most one per coalescing time
/// (20 ms when serving), and none while PostgreSQL's notification queue fills (a full queue fails a notifying commit,
/// so a like would fail).
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
        /// While `held`, the doorbell's thread waits in `receive`, before it would ring what is pending.
        let held = Mutex(false)
        let waiting = Atomic(false)
        func receive() throws -> [String] {
            while held.withLock({ $0 }) {
                waiting.store(true, ordering: .relaxed)
                Thread.sleep(forTimeInterval: 0.001)
            }
            waiting.store(false, ordering: .relaxed)
            return []
        }
        let rings = Atomic(0)
        func notify(_ payloads: [String]) throws { rings.add(1, ordering: .relaxed) }
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

    @Test func aCommitCarriesItsEventsAtMostOncePerCoalescingTimeAndNotWhileTheQueueFills() throws {
        let session = QueueSession()
        // One second between rings instead of 20 ms: two calls a line apart are within it even on a machine where
        // the test's thread waits for a core.
        let doorbell = try Doorbell(session: session, hub: EventHub(clock: ManualClock(Date())), coalescing: 1)
        defer { doorbell.stop() }
        #expect(eventually(timeout: 5) { session.checks.load(ordering: .relaxed) > 0 }, "the queue is checked when the doorbell starts")
        let settings = Self.event(.queueUpdated(.settings), sequence: 7)
        let scoped = Self.event(.queueUpdated(.settings), sequence: 8, audience: Audience(source: "ios", installationId: "i1"))
        let live = ServerEvent(kind: .queueUpdated(.settings), partyId: "party1", at: Date())
        #expect(doorbell.ringAtCommit([live][...]) == nil, "nothing logged, nothing to ring")

        // A ring waiting for the doorbell's thread (held before it would ring) goes with the commit's.
        session.held.withLock { $0 = true }
        doorbell.catchUp(partyId: "none")
        #expect(eventually(timeout: 5) { session.waiting.load(ordering: .relaxed) })
        doorbell.ring(partyId: "party2", sequence: 3)
        let payload = try #require(doorbell.ringAtCommit([settings, scoped][...]))
        session.held.withLock { $0 = false }
        let segments = payload.split(separator: "\t", omittingEmptySubsequences: false).map(String.init)
        #expect(!payload.contains("\n") && segments.count == 2, "one line, one event carried: \(payload)")
        #expect(segments[1] == "party1 7 queue-updated " + settings.message, "the event as its streams get it: \(segments[1])")
        // The ring's words, as a ring after a commit has them (an instance that reads only those reads the log): the
        // transaction's party at its newest number (the scoped event, not carried), and a party rung before.
        let words = segments[0].split(separator: " ").map(String.init)
        #expect(segments[0].hasSuffix(" ") && Set(words.dropFirst()) == ["party1:8", "party2:3"], "\(segments[0])")
        // Split at spaces only, no word of the carried part reads as a ring.
        #expect(payload.split(separator: " ").filter { $0.split(separator: ":").count == 2 && Int64($0.split(separator: ":")[1]) != nil }.count == 2)
        #expect(doorbell.ringAtCommit([settings][...]) == nil, "the next commit within the coalescing time rings after it, with the others")
        // The doorbell still rings party2 itself (the commit could have rolled back), once the coalescing time has passed.
        #expect(eventually(timeout: 5) { session.rings.load(ordering: .relaxed) == 1 })
        Thread.sleep(forTimeInterval: doorbell.coalescing * 1.2)
        #expect(doorbell.ringAtCommit([settings][...]) != nil)

        session.usage.withLock { $0 = Doorbell.queueLimit }
        #expect(session.nextCheck())
        Thread.sleep(forTimeInterval: doorbell.coalescing * 1.2)
        #expect(doorbell.ringAtCommit([settings][...]) == nil, "the queue fills: no commit rings")
        session.usage.withLock { $0 = 0 }
        // Two checks: the first is counted as it starts, and its answer is applied only after it returns.
        #expect(session.nextCheck() && session.nextCheck())
        #expect(doorbell.ringAtCommit([settings][...]) != nil, "read again: commits ring")
    }
}
