import PartyCore
import Foundation
import HTTPServer

/// Fans events out to the SSE streams of each party. Every stream has a bounded buffer (EventStream);
/// a recent-events ring per party lets a client resume with `Last-Event-ID`.
/// `@unchecked Sendable`: all state is guarded by `lock`.
final class EventHub: @unchecked Sendable {
    static let replayLimit = 64
    /// SPEC asks for at least every 15 s; 5 s also finds clients that left within two pings, since a
    /// suspended connection does not notice a closed socket (NOTES-libmicrohttpd) and the first write to it succeeds.
    static let keepaliveInterval: TimeInterval = 5
    private static let retryHint = Array("retry: 3000\n\n".utf8)
    private static let ping = Array(": ping\n\n".utf8)

    private let lock = NSLock()
    private let clock: any PartyClock
    private var streams: [String: [ObjectIdentifier: EventStream]] = [:]
    private var recent: [String: [(id: Int, frame: [UInt8])]] = [:]
    /// Starts at the wall clock in ms so ids keep growing across restarts.
    private var lastId: Int

    init(clock: any PartyClock) {
        self.clock = clock
        lastId = Int(clock.now().timeIntervalSince1970 * 1000)
    }

    /// A new stream for `partyId`, primed with the retry hint and any events after `lastEventId`.
    func subscribe(partyId: String, lastEventId: Int?) -> EventStream {
        lock.lock()
        defer { lock.unlock() }
        var initial = Self.retryHint
        if let lastEventId {
            for event in recent[partyId] ?? [] where event.id > lastEventId { initial += event.frame }
        }
        let stream = EventStream(initial: initial)
        streams[partyId, default: [:]][ObjectIdentifier(stream)] = stream
        stream.whenFinished { [weak self, weak stream] in
            guard let self, let stream else { return }
            self.remove(stream, partyId: partyId)
        }
        return stream
    }

    func publish(_ event: ServerEvent) {
        lock.lock()
        defer { lock.unlock() }
        lastId += 1
        let frame = event.frame(id: lastId, at: clock.now())
        var ring = recent[event.partyId] ?? []
        ring.append((lastId, frame))
        if ring.count > Self.replayLimit { ring.removeFirst(ring.count - Self.replayLimit) }
        recent[event.partyId] = ring
        for stream in (streams[event.partyId] ?? [:]).values { stream.send(frame) }
    }

    /// Keepalive comments: keep proxies from closing idle streams and reveal clients that left.
    func pingAll() {
        lock.lock()
        let all = streams.values.flatMap(\.values)
        lock.unlock()
        for stream in all { stream.send(Self.ping) }
    }

    /// Ends the streams of one party (after party-ended) and forgets its replay ring.
    func closeParty(_ partyId: String) {
        lock.lock()
        let party = streams[partyId].map { Array($0.values) } ?? []
        recent[partyId] = nil
        lock.unlock()
        for stream in party { stream.close() }
    }

    func closeAll() {
        lock.lock()
        let all = streams.values.flatMap(\.values)
        lock.unlock()
        for stream in all { stream.close() }
    }

    private func remove(_ stream: EventStream, partyId: String) {
        lock.lock()
        defer { lock.unlock() }
        streams[partyId]?[ObjectIdentifier(stream)] = nil
        if streams[partyId]?.isEmpty == true { streams[partyId] = nil }
    }
}
