import ClientNetwork
import Foundation
import PartyCore

/// Fans events out to the SSE streams of each party. Every stream has a bounded buffer (the app's sink);
/// a recent-events ring per party lets a client resume with `Last-Event-ID`.
/// `@unchecked Sendable`: all state is guarded by `lock`.
public final class EventHub: @unchecked Sendable {
    static let replayLimit = 64
    /// A party's replay ring outlives its last listener this long (a phone's reconnect), then it is dropped.
    static let replayRetention: TimeInterval = 60
    /// SPEC asks for at least every 15 s. 4 s finds clients that left within two pings, since a suspended
    /// connection does not notice a closed socket (NOTES-libmicrohttpd) and the first write to it succeeds; and a
    /// page that hears nothing for two intervals reopens its stream within 10 s of a silent network switch (issue
    /// 24). Streams announce it in their first bytes (`: keepalive-ms 4000`), the one place pages learn it from.
    public static let keepaliveInterval: TimeInterval = 4
    /// The first bytes of every stream: the reconnect hint and the keepalive interval.
    static let streamPreamble = Array("retry: 3000\n: keepalive-ms \(Int(keepaliveInterval * 1000))\n\n".utf8)
    private static let ping = Array(": ping\n\n".utf8)

    /// How many streams one address (an IPv6 /64 counts as one), one network, one party and the whole server may
    /// hold (0: no per-address limit). Issue 23: a party keeps `reservedPerParty` of its slots for streams that
    /// proved the host PIN or the monitor token (125 addresses once filled a party's 1,000 and the TV's stream was
    /// refused); streams that wait for an iOS login (no party) share `installations` of their own; one network
    /// (IPv4 /24, IPv6 /64) holds at most `perNetwork`.
    public struct Limits: Sendable {
        public var perAddress: Int
        public var perParty: Int
        public var total: Int
        public var reservedPerParty: Int
        public var installations: Int
        public var perNetwork: Int

        public init(perAddress: Int, perParty: Int, total: Int, reservedPerParty: Int = 16, installations: Int = 256,
                    perNetwork: Int? = nil) {
            self.perAddress = perAddress
            self.perParty = perParty
            self.total = total
            self.reservedPerParty = min(reservedPerParty, perParty / 2)
            self.installations = installations
            self.perNetwork = perNetwork ?? max(1, total / 2)
        }
    }

    /// What a stream proved when it opened.
    public enum Standing: Sendable {
        case guest
        /// The party's host or its registered monitor: may use the party's reserved slots, not held to the
        /// per-address and per-network caps (a TV often shares the host's address).
        case privileged
        /// A stream waiting for an iOS login, with no party.
        case installation
    }

    private struct Subscriber {
        let stream: any EventSink
        let address: String
        let isMonitor: Bool
        let standing: Standing
        let audience: Audience
        /// A stream of an ended party closes by itself then (SPEC: after at most 10 minutes).
        var closesAt: Date? = nil
    }

    /// How long a stream opened for an ended party stays open with keepalives.
    static let endedPartyStreamLifetime: TimeInterval = 600

    private let lock = NSLock()
    private let clock: any PartyClock
    private let limits: Limits
    private var streams: [String: [ObjectIdentifier: Subscriber]] = [:]
    private var streamsPerAddress: [String: Int] = [:]
    private var streamsPerNetwork: [String: Int] = [:]
    private var installationStreams = 0
    /// R21: open streams of each party's registered monitor; `deviceActive` follows them.
    private var monitorStreams: [String: Int] = [:]
    /// Streams per party and client address: a web player registered from an address counts its streams (issue 13).
    private var partyAddressStreams: [String: Int] = [:]
    /// Told (off the lock) when a stream opens or closes: party, address, whether a monitor. Set once, before any stream.
    private var onStreamChange: (@Sendable (String, String, Bool) -> Void)?
    private var total = 0
    private var recent: [String: [(id: Int, frame: [UInt8], audience: Audience?)]] = [:]
    /// When each party without listeners lost its last one; its ring goes after `replayRetention`.
    private var unattendedSince: [String: Date] = [:]
    /// Starts at the wall clock in ms so ids keep growing across restarts.
    private var lastId: Int

    public init(clock: any PartyClock, limits: Limits = Limits(perAddress: 0, perParty: PartyLimits().streamsPerParty, total: 12_000)) {
        self.clock = clock
        self.limits = limits
        lastId = Int(saturating: clock.now().timeIntervalSince1970 * 1000)
    }

    /// Who hears that streams opened or closed (the service, which announces `device-changed`).
    func whenStreamsChange(_ action: @escaping @Sendable (_ partyId: String, _ address: String, _ isMonitor: Bool) -> Void) {
        lock.lock()
        onStreamChange = action
        lock.unlock()
    }

    /// Open streams of the party's registered player: its monitor streams, and any stream from `address` (the
    /// address a player without a monitor token registered from).
    func playerStreamCount(partyId: String, address: String?) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return monitorStreams[partyId, default: 0] + (address.map { partyAddressStreams[partyId + "|" + $0, default: 0] } ?? 0)
    }

    /// A new stream for `partyId`, primed with the retry hint and any events after `lastEventId`;
    /// `.tooManyStreams` past a limit, so one phone cannot hold every connection of the party or the server.
    /// The hub alone owns the stream's end: it forgets it and, for a monitor, reports the change.
    /// `makeSink` gets the bytes the stream starts with (retry hint and replayed events).
    func subscribe<Sink: EventSink>(partyId: String, address: String, lastEventId: Int?, isMonitor: Bool = false,
                                    standing: Standing = .guest, audience: Audience = Audience(source: "web"),
                                    makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        let stream = try register(partyId: partyId, address: address, lastEventId: lastEventId, isMonitor: isMonitor,
                                  standing: isMonitor ? .privileged : standing, audience: audience, makeSink: makeSink)
        streamsChanged(partyId, address, isMonitor)
        return stream
    }

    /// SPEC: a stream asked for a party that has ended answers with one `party-ended` event and then stays
    /// open with keepalives for 10 minutes, so a client that reconnects at once is not answered with a 404
    /// it would retry in a tight loop.
    func subscribeToEndedParty<Sink: EventSink>(partyId: String, address: String, makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        try register(partyId: partyId, address: address, lastEventId: nil, isMonitor: false, standing: .guest,
                     audience: Audience(source: "web"), ended: true, makeSink: makeSink)
    }

    private func register<Sink: EventSink>(partyId: String, address: String, lastEventId: Int?, isMonitor: Bool, standing: Standing,
                                           audience: Audience, ended: Bool = false, makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        lock.lock()
        defer { lock.unlock() }
        let (device, network) = (AddressPrefix.device(of: address), AddressPrefix.network(of: address))
        guard admits(standing, partyId: partyId, device: device, network: network) else { throw .tooManyStreams }
        var initial = Self.streamPreamble
        if let lastEventId {
            for event in recent[partyId] ?? [] where event.id > lastEventId && event.audience?.admits(audience) ?? true {
                initial += event.frame
            }
        }
        var closesAt: Date?
        if ended {
            lastId += 1
            initial += ServerEvent(type: .partyEnded, partyId: partyId).frame(id: lastId, at: clock.now())
            closesAt = clock.now().addingTimeInterval(Self.endedPartyStreamLifetime)
        }
        let stream = makeSink(initial)
        streams[partyId, default: [:]][ObjectIdentifier(stream)] = Subscriber(stream: stream, address: address, isMonitor: isMonitor,
                                                                              standing: standing, audience: audience, closesAt: closesAt)
        streamsPerAddress[device, default: 0] += 1
        streamsPerNetwork[network, default: 0] += 1
        if standing == .installation { installationStreams += 1 }
        partyAddressStreams[partyId + "|" + address, default: 0] += 1
        if isMonitor { monitorStreams[partyId, default: 0] += 1 }
        total += 1
        unattendedSince[partyId] = nil
        stream.whenFinished { [weak self, weak stream] in
            guard let self, let stream else { return }
            self.remove(stream, partyId: partyId)
        }
        return stream
    }

    /// Whether one more stream of this standing fits; called under `lock`.
    private func admits(_ standing: Standing, partyId: String, device: String, network: String) -> Bool {
        guard total < limits.total else { return false }
        let inParty = streams[partyId]?.count ?? 0
        switch standing {
        case .privileged:
            return inParty < limits.perParty
        case .installation:
            guard installationStreams < limits.installations else { return false }
        case .guest:
            guard inParty < limits.perParty - limits.reservedPerParty else { return false }
        }
        return (limits.perAddress == 0 || streamsPerAddress[device, default: 0] < limits.perAddress)
            && streamsPerNetwork[network, default: 0] < limits.perNetwork
    }

    func publish(_ event: ServerEvent) {
        lock.lock()
        defer { lock.unlock() }
        lastId += 1
        let listeners = streams[event.partyId]
        // Nobody listens and nobody left recently: no ring, so a flood of parties costs no memory here.
        guard listeners != nil || unattendedSince[event.partyId] != nil else { return }
        let frame = event.frame(id: lastId, at: clock.now())
        var ring = recent[event.partyId] ?? []
        ring.append((lastId, frame, event.audience))
        if ring.count > Self.replayLimit { ring.removeFirst(ring.count - Self.replayLimit) }
        recent[event.partyId] = ring
        for subscriber in (listeners ?? [:]).values where event.audience?.admits(subscriber.audience) ?? true {
            subscriber.stream.send(frame)
        }
    }

    /// Keepalive comments: keep proxies from closing idle streams and reveal clients that left.
    /// Also drops the replay rings of parties nobody has listened to for a while.
    public func pingAll() {
        lock.lock()
        let all = streams.values.flatMap(\.values)
        let now = clock.now()
        for (partyId, since) in unattendedSince where now.timeIntervalSince(since) > Self.replayRetention {
            unattendedSince[partyId] = nil
            recent[partyId] = nil
        }
        lock.unlock()
        for subscriber in all {
            if let closesAt = subscriber.closesAt, closesAt <= now { subscriber.stream.close() } else { subscriber.stream.send(Self.ping) }
        }
    }

    /// Open streams: of one party, or of the whole server.
    func streamCount(partyId: String? = nil) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return partyId.map { streams[$0]?.count ?? 0 } ?? total
    }

    /// Ends the streams of one party (after party-ended) and forgets its replay ring.
    func closeParty(_ partyId: String) {
        lock.lock()
        let party = streams[partyId].map { Array($0.values) } ?? []
        recent[partyId] = nil
        unattendedSince[partyId] = nil
        lock.unlock()
        for subscriber in party { subscriber.stream.close() }
    }

    /// Ends the party's monitor streams (the monitor said it leaves); the hub hears of each end as usual.
    func closeMonitorStreams(partyId: String) {
        lock.lock()
        let monitors = streams[partyId].map { $0.values.filter(\.isMonitor) } ?? []
        lock.unlock()
        for subscriber in monitors { subscriber.stream.close() }
    }

    public func closeAll() {
        lock.lock()
        let all = streams.values.flatMap(\.values)
        lock.unlock()
        for subscriber in all { subscriber.stream.close() }
    }

    private func remove(_ stream: any EventSink, partyId: String) {
        if let subscriber = unregister(stream, partyId: partyId) { streamsChanged(partyId, subscriber.address, subscriber.isMonitor) }
    }

    private func streamsChanged(_ partyId: String, _ address: String, _ isMonitor: Bool) {
        lock.lock()
        let action = onStreamChange
        lock.unlock()
        action?(partyId, address, isMonitor)
    }

    private func unregister(_ stream: any EventSink, partyId: String) -> Subscriber? {
        lock.lock()
        defer { lock.unlock() }
        guard let subscriber = streams[partyId]?.removeValue(forKey: ObjectIdentifier(stream)) else { return nil }
        total -= 1
        if subscriber.isMonitor {
            monitorStreams[partyId, default: 1] -= 1
            if monitorStreams[partyId] == 0 { monitorStreams[partyId] = nil }
        }
        let (device, network) = (AddressPrefix.device(of: subscriber.address), AddressPrefix.network(of: subscriber.address))
        streamsPerAddress[device, default: 1] -= 1
        if streamsPerAddress[device] == 0 { streamsPerAddress[device] = nil }
        streamsPerNetwork[network, default: 1] -= 1
        if streamsPerNetwork[network] == 0 { streamsPerNetwork[network] = nil }
        if subscriber.standing == .installation { installationStreams -= 1 }
        let key = partyId + "|" + subscriber.address
        partyAddressStreams[key, default: 1] -= 1
        if partyAddressStreams[key] == 0 { partyAddressStreams[key] = nil }
        if streams[partyId]?.isEmpty == true {
            streams[partyId] = nil
            if recent[partyId] != nil { unattendedSince[partyId] = clock.now() }
        }
        return subscriber
    }
}
