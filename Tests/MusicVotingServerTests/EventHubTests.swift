import Foundation
import PartyCore
import PartyStore
import Synchronization
import Testing
@testable import HTTPServer
@testable import MusicVotingServer
@testable import PartyEngine

/// The hub alone owns each stream's end; a slow client is dropped (it resumes from the party's log,
/// `EventLogServiceTests`).
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

    /// The keepalive comments among what libmicrohttpd would read from the stream now (none for no stream).
    static func pings(in stream: EventStream?) -> Int {
        stream.map { drain($0).components(separatedBy: ": ping\n\n").count - 1 } ?? 0
    }

    /// A logged like (its sequence number is the SSE id), about 400 bytes on the wire.
    static func vote(_ index: Int, sequence: Int64? = nil) -> ServerEvent {
        ServerEvent(kind: .voteUpdated(uri: "demo:track:\(index)", likeCount: 1, entryId: Int64(index), order: Array(1_000_000...1_000_050)),
                    partyId: "p", at: Date(timeIntervalSince1970: 1_800_000_000), sequence: sequence ?? Int64(index + 1))
    }

    @Test func aClientThatFallsBehindItsBufferIsDropped() throws {
        let hub = EventHub(clock: clock)
        let reader = try hub.subscribe(partyId: "p", address: "a")
        let slow = try hub.subscribe(partyId: "p", address: "b")
        var lastSeen = 0
        for index in 0..<200 {
            hub.publish(Self.vote(index))
            let text = Self.drain(reader)
            if let id = text.split(separator: "\n").last(where: { $0.hasPrefix("id: ") }).flatMap({ Int($0.dropFirst(4)) }) { lastSeen = id }
        }
        #expect(lastSeen == 200, "ids are the events' sequence numbers")
        #expect(!slow.send([0x20]), "the slow client was dropped once 64 KiB waited for it")
        slow.finish()
        #expect(hub.streamCount(partyId: "p") == 1, "and it left the hub")
    }

    /// A resumed stream's replay is its first bytes, not a client falling behind: live events queue behind it up to
    /// the buffer's size, and only past that is the client dropped (counting the replay dropped a long one before
    /// its first byte, at every reconnect).
    @Test func aLongReplayIsNoBacklogButLiveEventsBehindItAre() {
        let stream = EventStream(capacity: 64 * 1024, initial: [UInt8](repeating: 0x61, count: 200 * 1024))
        #expect(stream.send([UInt8](repeating: 0x62, count: 60 * 1024)), "a live event behind the replay")
        var buffer = [CChar](repeating: 0, count: 16 * 1024)
        for _ in 0..<6 { _ = buffer.withUnsafeMutableBufferPointer { stream.read(into: $0.baseAddress!, max: $0.count) } }
        #expect(stream.send([UInt8](repeating: 0x62, count: 4 * 1024 - 1)), "the rest of the replay still does not count")
        #expect(!stream.send([UInt8](repeating: 0x62, count: 2)), "64 KiB behind the replay: dropped")
    }

    /// Keepalives (one `pingIdle` a second) go to the streams that heard nothing for the interval; a party's events
    /// reach its streams instead, so a busy party's streams get no ping to meet its next event (every
    /// stream was pinged at the same instant every 4 s, a second fan-out that delayed the event it met).
    @Test func aPingGoesOnlyToStreamsThatHeardNothingForTheInterval() throws {
        let hub = EventHub(clock: clock)
        let busy = try hub.subscribe(partyId: "p", address: "a"), quiet = try hub.subscribe(partyId: "q", address: "b")
        var late: EventStream?
        var pings = (busy: 0, quiet: 0, late: 0)
        _ = Self.pings(in: busy) + Self.pings(in: quiet)
        for second in 1...12 {
            if second % 3 == 0 { hub.publish(Self.vote(second)) }  // party p hears an event every 3 s
            if second == 6 { late = try hub.subscribe(partyId: "q", address: "c"); _ = Self.pings(in: late) }
            hub.pingIdle()
            pings.busy += Self.pings(in: busy)
            pings.quiet += Self.pings(in: quiet)
            pings.late += Self.pings(in: late)
        }
        #expect(pings.busy == 0, "its party's events kept the stream from being idle")
        #expect(pings.quiet == 3, "an idle stream hears a ping every 4 s")
        #expect(pings.late == 1, "a stream that joined at 6 s is first pinged 4 s after its first bytes")
    }

    /// An event a stream skipped, as its first bytes had covered it, does not count as its party's streams having
    /// heard: with several instances it may come seconds after the stream opened, which stays as silent as before.
    @Test func anEventAStreamSkippedLeavesItsKeepaliveDue() throws {
        let hub = EventHub(clock: clock)
        let covered = try hub.subscribe(partyId: "p", address: "a", initial: [], resumedAt: 5) { EventStream(initial: $0) }
        let other = try hub.subscribe(partyId: "p", address: "b")
        _ = Self.drain(other)
        var pings = 0
        for second in 1...4 {
            if second == 3 { hub.publish(Self.vote(4, sequence: 5)) }
            hub.pingIdle()
            pings += Self.pings(in: covered)
        }
        #expect(pings == 1, "pinged 4 s after its first bytes, though the others heard an event at 2 s")
        #expect(Self.drain(other).contains("id: 5"), "the other stream heard it")
    }

    /// A stream whose first bytes replayed the log up to 7 is not sent 6 or 7 again when their writers
    /// hand them to the hub after it joined; an event that is not logged has no id.
    /// Several instances: a party's streams get its logged events in sequence order, each once. An event
    /// written here after one another instance wrote waits until the doorbell read the missing one from the log.
    @Test func withOtherWritersAnEventPastAGapWaitsForTheLog() throws {
        let hub = EventHub(clock: clock)
        let asked = Mutex<[String]>([])
        hub.followLog { partyId in asked.withLock { $0.append(partyId) } }
        let stream = try hub.subscribe(partyId: "p", address: "a", initial: [], resumedAt: 5) { EventStream(initial: $0) }
        #expect(hub.servedParties() == ["p": 5])
        #expect(asked.withLock { $0 } == ["p"], "the party's first stream here: its log is read once after 5")
        let second = try hub.subscribe(partyId: "p", address: "b", initial: [], resumedAt: 5) { EventStream(initial: $0) }
        #expect(asked.withLock { $0 } == ["p"], "not for its second stream")
        second.finish()
        hub.publish(Self.vote(6, sequence: 6))
        hub.publish(Self.vote(8, sequence: 8))
        #expect(asked.withLock { $0 } == ["p", "p"], "7 came from elsewhere: the log is read")
        #expect(Self.drain(stream).split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 6"])
        let fromLog = (7...8).map { LoggedEvent(sequence: Int64($0), type: "queue-updated", message: "{}", createdAt: clock.now()) }
        hub.deliver(partyId: "p", logged: fromLog)
        #expect(Self.drain(stream).split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 7", "id: 8"], "8 once")
        hub.publish(Self.vote(8, sequence: 8))
        hub.deliver(partyId: "p", logged: fromLog)
        #expect(Self.drain(stream).isEmpty, "nothing twice")
        #expect(hub.servedParties() == ["p": 8])
        stream.finish()
        #expect(hub.servedParties().isEmpty, "a party without streams here is not followed")
    }

    /// `party-ended` ends the party's streams once it went out, after every event before it: on the
    /// instance that ended the party (which may be behind another instance's events) and on the others.
    @Test func aPartyEndedPastAGapEndsTheStreamsOnlyAfterTheEventsBeforeIt() throws {
        let hub = EventHub(clock: clock)
        hub.followLog { _ in }
        let here = try hub.subscribe(partyId: "p", address: "a", initial: [], resumedAt: 5) { EventStream(initial: $0) }
        hub.publish(ServerEvent(kind: .partyEnded, partyId: "p", at: clock.now(), sequence: 7))
        #expect(Self.drain(here).isEmpty && !Self.hasEnded(here), "6 came from elsewhere: party-ended waits, the stream stays open")
        hub.deliver(partyId: "p", logged: [LoggedEvent(sequence: 6, type: "track-changed", message: "{}", createdAt: clock.now())])
        let text = Self.drain(here)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 6", "id: 7"] && text.contains("party-ended"))
        #expect(Self.hasEnded(here), "then it ends")

        let elsewhere = try hub.subscribe(partyId: "q", address: "a", initial: [], resumedAt: 3) { EventStream(initial: $0) }
        hub.deliver(partyId: "q", logged: [LoggedEvent(sequence: 4, type: "party-ended", message: "{}", createdAt: clock.now())])
        #expect(Self.drain(elsewhere).contains("id: 4") && Self.hasEnded(elsewhere), "read from the log, it ends the stream too")
    }

    /// Whether the stream's reader says the stream is over (it has nothing queued).
    static func hasEnded(_ stream: EventStream) -> Bool {
        var byte: CChar = 0
        return stream.read(into: &byte, max: 1) < 0
    }

    @Test func aStreamGetsNoEventItsReplayCoveredAndUnloggedEventsHaveNoId() throws {
        let hub = EventHub(clock: clock)
        let stream = try hub.subscribe(partyId: "p", address: "a", initial: [], resumedAt: 7) { EventStream(initial: $0) }
        for sequence in Int64(6)...9 { hub.publish(Self.vote(Int(sequence), sequence: sequence)) }
        hub.publish(ServerEvent(kind: .progress(positionMs: 1, durationMs: 2, paused: false), partyId: "p", at: clock.now()))
        let text = Self.drain(stream)
        #expect(text.split(separator: "\n").filter { $0.hasPrefix("id: ") } == ["id: 8", "id: 9"])
        #expect(text.hasSuffix("\n\ndata: {\"type\":\"progress\",\"timestamp\":1800000000000,\"payload\":{\"partyId\":\"p\",\"source\":\"server\",\"position\":\"1\",\"duration\":\"2\",\"paused\":\"false\"}}\n\n"),
                "\(text)")
    }

    @Test func monitorStreamsAreCountedAndLeaveTheHubWhenFinished() throws {
        let hub = EventHub(clock: clock)
        let changes = Mutex<[String]>([])
        hub.whenStreamsChange { partyId, address, isMonitor in changes.withLock { $0.append("\(partyId) \(address) \(isMonitor)") } }
        let monitor = try hub.subscribe(partyId: "p", address: "tv", isMonitor: true)
        #expect(hub.playerStreamCount(partyId: "p", address: nil) == 1 && changes.withLock { $0 } == ["p tv true"])
        monitor.finish()
        #expect(hub.playerStreamCount(partyId: "p", address: nil) == 0 && hub.streamCount() == 0)
        #expect(changes.withLock { $0 } == ["p tv true", "p tv true"], "opening and closing are both reported")
        // A player without a monitor token counts by the address it registered from.
        let player = try hub.subscribe(partyId: "p", address: "laptop")
        #expect(hub.playerStreamCount(partyId: "p", address: "laptop") == 1)
        #expect(hub.playerStreamCount(partyId: "p", address: "phone") == 0)
        player.finish()
        #expect(hub.playerStreamCount(partyId: "p", address: "laptop") == 0)
    }

    @Test func fiveHundredMonitorReloadsLeaveTheHubEmpty() throws {
        let hub = EventHub(clock: clock)
        for _ in 0..<500 {
            let monitor = try hub.subscribe(partyId: "p", address: "tv", isMonitor: true)
            hub.publish(Self.vote(1))
            monitor.finish()
        }
        #expect(hub.streamCount() == 0 && hub.playerStreamCount(partyId: "p", address: "tv") == 0)
    }
}

extension EventHub {
    /// The app's sink: the HTTP layer's bounded streaming response.
    func subscribe(partyId: String, address: String, isMonitor: Bool = false) throws -> EventStream {
        try subscribe(partyId: partyId, address: address, isMonitor: isMonitor) { EventStream(initial: $0) }
    }
}

/// Reserved capacity. A flood of guest streams never takes the TV's or the host's place, streams
/// waiting for an iOS login have their own small cap, and one network holds at most its share.
@Suite("Event hub: reserved and shared capacity")
struct EventHubCapacityTests {
    let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))

    func open(_ hub: EventHub, party: String = "p", address: String, standing: EventHub.Standing = .guest) throws -> EventStream {
        try hub.subscribe(partyId: party, address: address, standing: standing) { EventStream(initial: $0) }
    }

    @Test func guestsFillOnlyTheUnreservedSlotsOfAParty() throws {
        let hub = EventHub(clock: clock, limits: EventHub.Limits(perAddress: 0, perParty: 40, total: 1_000, reservedPerParty: 16))
        var streams: [EventStream] = []
        for index in 0..<24 { streams.append(try open(hub, address: "10.\(index).0.1")) }
        #expect(throws: PartyError.tooManyStreams) { try open(hub, address: "10.99.0.1") }
        for index in 0..<16 { streams.append(try open(hub, address: "192.168.1.\(index)", standing: .privileged)) }
        #expect(throws: PartyError.tooManyStreams, "the party's cap holds for everyone") {
            try open(hub, address: "192.168.1.99", standing: .privileged)
        }
        #expect(hub.streamCount(partyId: "p") == 40)
    }

    @Test func installationStreamsHaveASmallCapOfTheirOwn() throws {
        let hub = EventHub(clock: clock, limits: EventHub.Limits(perAddress: 0, perParty: 40, total: 1_000, installations: 5))
        var streams: [EventStream] = []
        for index in 0..<5 { streams.append(try open(hub, party: "installation:\(index)", address: "10.\(index).0.1", standing: .installation)) }
        #expect(throws: PartyError.tooManyStreams) { try open(hub, party: "installation:x", address: "10.50.0.1", standing: .installation) }
        streams.append(try open(hub, address: "10.60.0.1"))
        streams[0].finish()
        #expect(throws: Never.self) { streams.append(try open(hub, party: "installation:y", address: "10.51.0.1", standing: .installation)) }
    }

    /// A network holds its share; on an IPv6 Wi-Fi every phone shares the /64, so each exact address is a client and
    /// the /64 a network.
    @Test func oneNetworkHoldsItsShareAndEachIPv6AddressIsAClient() throws {
        let hub = EventHub(clock: clock, limits: EventHub.Limits(perAddress: 4, perParty: 1_000, total: 1_000, perNetwork: 10))
        var streams: [EventStream] = []
        for index in 0..<10 { streams.append(try open(hub, address: "172.16.3.\(index)")) }
        #expect(throws: PartyError.tooManyStreams) { try open(hub, address: "172.16.3.200") }
        streams.append(try open(hub, address: "172.16.4.1"))
        for _ in 0..<4 { streams.append(try open(hub, address: "2001:db8:1:1::1")) }
        #expect(throws: PartyError.tooManyStreams, "one phone's fifth") { try open(hub, address: "2001:db8:1:1:0:0:0:1") }
        for index in 0..<6 { streams.append(try open(hub, address: "2001:db8:1:1::\(index + 2)")) }
        #expect(throws: PartyError.tooManyStreams, "the /64's share is taken") { try open(hub, address: "2001:db8:1:1::99") }
    }
}
