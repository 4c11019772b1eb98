import Foundation
import Synchronization
import Testing
@testable import HTTPServer
@testable import MusicVotingServer
@testable import PartyEngine

/// Issue 11: the hub alone owns each stream's end; a slow client is dropped and can resume.
@Suite("Event hub: stream lifetimes")
struct EventHubTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    /// What libmicrohttpd would read from the stream now.
    static func drain(_ stream: EventStream) -> String {
        var bytes: [UInt8] = []
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        while stream.pendingByteCount > 0 {
            let count = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) }
            guard count > 0 else { break }
            bytes += buffer.prefix(count).map { UInt8(bitPattern: $0) }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    static func vote(_ index: Int) -> ServerEvent {
        ServerEvent(type: .voteUpdated, partyId: "p", payload: [("uri", "demo:track:\(index)"), ("likeCount", String(repeating: "9", count: 400))])
    }

    @Test func aClientThatFallsBehindItsBufferIsDroppedAndResumesWithLastEventId() throws {
        let hub = EventHub(clock: clock)
        let reader = try hub.subscribe(partyId: "p", address: "a", lastEventId: nil)
        let slow = try hub.subscribe(partyId: "p", address: "b", lastEventId: nil)
        var lastSeen = 0
        for index in 0..<200 {
            hub.publish(Self.vote(index))
            let text = Self.drain(reader)
            if let id = text.split(separator: "\n").last(where: { $0.hasPrefix("id: ") }).flatMap({ Int($0.dropFirst(4)) }) { lastSeen = id }
        }
        #expect(!slow.send([0x20]), "the slow client was dropped once 64 KiB waited for it")
        slow.finish()
        #expect(hub.streamCount(partyId: "p") == 1, "and it left the hub")
        let resumed = try hub.subscribe(partyId: "p", address: "b", lastEventId: lastSeen - 3)
        let replay = Self.drain(resumed)
        #expect(replay.components(separatedBy: "data: ").count - 1 == 3, "the three events after Last-Event-ID are replayed")
        #expect(replay.contains("demo:track:199"))
    }

    @Test func monitorStreamsAreCountedAndLeaveTheHubWhenFinished() throws {
        let hub = EventHub(clock: clock)
        let changes = Mutex<[String]>([])
        hub.whenStreamsChange { partyId, address, isMonitor in changes.withLock { $0.append("\(partyId) \(address) \(isMonitor)") } }
        let monitor = try hub.subscribe(partyId: "p", address: "tv", lastEventId: nil, isMonitor: true)
        #expect(hub.playerStreamCount(partyId: "p", address: nil) == 1 && changes.withLock { $0 } == ["p tv true"])
        monitor.finish()
        #expect(hub.playerStreamCount(partyId: "p", address: nil) == 0 && hub.streamCount() == 0)
        #expect(changes.withLock { $0 } == ["p tv true", "p tv true"], "opening and closing are both reported")
        // A player without a monitor token counts by the address it registered from.
        let player = try hub.subscribe(partyId: "p", address: "laptop", lastEventId: nil)
        #expect(hub.playerStreamCount(partyId: "p", address: "laptop") == 1)
        #expect(hub.playerStreamCount(partyId: "p", address: "phone") == 0)
        player.finish()
        #expect(hub.playerStreamCount(partyId: "p", address: "laptop") == 0)
    }

    @Test func fiveHundredMonitorReloadsLeaveTheHubEmpty() throws {
        let hub = EventHub(clock: clock)
        for _ in 0..<500 {
            let monitor = try hub.subscribe(partyId: "p", address: "tv", lastEventId: nil, isMonitor: true)
            hub.publish(Self.vote(1))
            monitor.finish()
        }
        #expect(hub.streamCount() == 0 && hub.playerStreamCount(partyId: "p", address: "tv") == 0)
    }
}

extension EventHub {
    /// The app's sink: the HTTP layer's bounded streaming response.
    func subscribe(partyId: String, address: String, lastEventId: Int?, isMonitor: Bool = false) throws -> EventStream {
        try subscribe(partyId: partyId, address: address, lastEventId: lastEventId, isMonitor: isMonitor) { EventStream(initial: $0) }
    }
}
