import ClientNetwork
import Foundation
import PartyCore
import PartyStore

/// Fans events out to the SSE streams of each party. Every stream has a bounded buffer (the app's sink). What a
/// client missed comes from the party's log, read by the service when the stream opens; the hub keeps
/// no events. `@unchecked Sendable`: all state is guarded by `lock`.
public final class EventHub: @unchecked Sendable {
    /// SPEC asks for at least every 15 s. 4 s finds clients that left within two pings, since a suspended
    /// connection does not notice a closed socket (NOTES-libmicrohttpd) and the first write to it succeeds; and a
    /// page that hears nothing for two intervals reopens its stream within 10 s of a silent network switch (issue
    /// 24). Streams announce it in their first bytes (`: keepalive-ms 4000`), the one place pages learn it from.
    public static let keepaliveInterval: TimeInterval = 4
    /// The first bytes of every stream: the reconnect hint and the keepalive interval.
    static let streamPreamble = preamble(lastSequence: nil)
    private static let ping = Array(": ping\n\n".utf8)

    /// The first bytes of a stream; with the party's newest sequence number as its `id:` (a block without data
    /// sets the client's last event id and dispatches nothing), so even a client that hears no event before it
    /// drops resumes from where it joined.
    static func preamble(lastSequence: Int64?) -> [UInt8] {
        Array(("retry: 3000\n" + (lastSequence.map { "id: \($0)\n" } ?? "")
               + ": keepalive-ms \(Int(keepaliveInterval * 1000))\n\n").utf8)
    }

    private struct Subscriber {
        let stream: any EventSink
        let address: String
        let isMonitor: Bool
        let standing: Standing
        let audience: Audience
        /// The newest sequence number the stream's first bytes covered: live events up to it are not sent again.
        let resumedAt: Int64?
        /// A stream of an ended party closes by itself then (SPEC: after at most 10 minutes).
        var closesAt: Date? = nil
        /// The keepalive tick of the stream's last bytes from the hub: its first bytes, or its last ping.
        var heardAt: Int
    }

    /// Keepalive ticks (`pingIdle`, one a second) without a byte before a stream gets a ping.
    static let idleTicks = Int(keepaliveInterval)

    /// How long a stream opened for an ended party stays open with keepalives.
    static let endedPartyStreamLifetime: TimeInterval = 600

    private let lock = NSLock()
    private let clock: any PartyClock
    private var streams: [String: [ObjectIdentifier: Subscriber]] = [:]
    /// `pingIdle` calls so far, and the tick of each party's last event sent to all its streams.
    private var keepaliveTick = 0
    private var partyHeardAt: [String: Int] = [:]
    /// How many streams each address, network, party player and the server hold, against `Limits`.
    private var admission: StreamAdmission
    /// Told (off the lock) when a stream opens or closes: party, address, whether a monitor. Set once, before any stream.
    private var onStreamChange: (@Sendable (String, String, Bool) -> Void)?
    /// Several instances: each party's logged events in sequence order.
    private var order = LogOrder()
    /// Set by `drain`: a stream opened from then on is told to come back and ends at once.
    private var drainRetry: ClosedRange<Int>?
    /// Parties whose `party-ended` went out under the lock: their streams end once it is released.
    private var endedParties: [String] = []
    /// Set when other instances write the same log (`followLog`): asked to read a party's log after `delivered`.
    private var catchUp: (@Sendable (String) -> Void)?

    public init(clock: any PartyClock, limits: Limits = Limits(perAddress: 0, perParty: PartyLimits().streamsPerParty, total: 12_000)) {
        self.clock = clock
        admission = StreamAdmission(limits: limits)
    }

    /// Other instances append to the same party logs. Each party's streams then get its logged events in
    /// sequence order, each once, without gaps: an event past a gap waits until `catchUp` (the doorbell) has read
    /// the missing ones from the log and handed them to `deliver`.
    public func followLog(catchUp: @escaping @Sendable (_ partyId: String) -> Void) {
        lock.lock()
        self.catchUp = catchUp
        lock.unlock()
    }

    /// The parties with streams here and the newest sequence number each was sent (the doorbell reads after it).
    public func servedParties() -> [String: Int64] {
        lock.lock()
        defer { lock.unlock() }
        return order.delivered
    }

    /// The newest sequence number the party's streams here were sent (nil: no streams here).
    func deliveredSequence(partyId: String) -> Int64? {
        lock.lock()
        defer { lock.unlock() }
        return order.delivered[partyId]
    }

    /// Events read from a party's log (oldest first), sent to its streams unless they already were. The log is the
    /// truth: events it no longer keeps are skipped rather than waited for.
    public func deliver(partyId: String, logged events: [LoggedEvent]) {
        lock.lock()
        for delivery in order.fromLog(events.map(Delivery.init(logged:)), partyId: partyId) { send(delivery, partyId: partyId) }
        lock.unlock()
        closeEndedParties()
    }

    /// An event another instance relayed without logging it (the monitor's progress): sent at once, without an id.
    public func deliver(partyId: String, live message: String) {
        lock.lock()
        send(Delivery(sequence: nil, frame: ServerEvent.frame(id: nil, message: message), audience: nil, endsParty: false), partyId: partyId)
        lock.unlock()
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
        return admission.playerStreams(partyId: partyId, address: address)
    }

    /// A new stream for `partyId` whose first bytes are `initial` (the preamble and what the log replays up to
    /// `resumedAt`); `.tooManyStreams` past a limit, so one phone cannot hold every connection of the party or the
    /// server. The hub alone owns the stream's end: it forgets it and, for a monitor, reports the change.
    func subscribe<Sink: EventSink>(partyId: String, address: String, initial: [UInt8] = EventHub.streamPreamble, resumedAt: Int64? = nil,
                                    isMonitor: Bool = false, standing: Standing = .guest, audience: Audience = Audience(source: "web"),
                                    makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        let stream = try register(partyId: partyId, address: address, initial: initial, resumedAt: resumedAt, isMonitor: isMonitor,
                                  standing: standing, audience: audience, makeSink: makeSink)
        streamsChanged(partyId, address, isMonitor)
        return stream
    }

    /// SPEC: a stream asked for a party that has ended answers with one `party-ended` event and then stays
    /// open with keepalives for 10 minutes, so a client that reconnects at once is not answered with a 404
    /// it would retry in a tight loop. Its id is the party's last (`party-ended` is the last event it logs).
    func subscribeToEndedParty<Sink: EventSink>(partyId: String, address: String, lastSequence: Int64?,
                                                makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        let ended = ServerEvent(kind: .partyEnded, partyId: partyId, at: clock.now())
        return try register(partyId: partyId, address: address,
                            initial: Self.preamble(lastSequence: nil) + ServerEvent.frame(id: lastSequence, message: ended.message),
                            resumedAt: lastSequence, isMonitor: false, standing: .guest, audience: Audience(source: "web"),
                            closesAt: clock.now().addingTimeInterval(Self.endedPartyStreamLifetime), makeSink: makeSink)
    }

    /// Adds the stream without telling `whenStreamsChange` (the caller does, with `streamsChanged`, once it holds
    /// no lock the listener takes): the service registers under its own lock, so no event commits between its
    /// read of the log and the stream joining.
    func register<Sink: EventSink>(partyId: String, address: String, initial: [UInt8], resumedAt: Int64?, isMonitor: Bool,
                                   standing: Standing, audience: Audience, closesAt: Date? = nil,
                                   makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink {
        // Without `unlessSentPast` a stream is always added.
        try registerIfCaughtUp(partyId: partyId, address: address, initial: initial, resumedAt: resumedAt, isMonitor: isMonitor,
                               standing: standing, audience: audience, closesAt: closesAt, unlessSentPast: nil, makeSink: makeSink)!
    }

    /// `register`, unless the party's streams here were already sent a logged event past `unlessSentPast` (another
    /// instance's, read by the doorbell after the caller read the log): the new stream's first bytes lack it and
    /// the hub will not send it again, so the caller reads the log again (nil) rather than leave a gap.
    func registerIfCaughtUp<Sink: EventSink>(partyId: String, address: String, initial: [UInt8], resumedAt: Int64?, isMonitor: Bool,
                                             standing: Standing, audience: Audience, closesAt: Date? = nil, unlessSentPast covered: Int64?,
                                             makeSink: ([UInt8]) -> Sink) throws(PartyError) -> Sink? {
        let standing = isMonitor ? .privileged : standing
        // Off the lock, as every call of it.
        var readLog: (@Sendable (String) -> Void)?
        defer { readLog?(partyId) }
        lock.lock()
        defer { lock.unlock() }
        if let covered, catchUp != nil, let sent = order.delivered[partyId], sent > covered { return nil }
        guard admission.admits(standing, address: address, inParty: streams[partyId]?.count ?? 0) else { throw .tooManyStreams }
        let stream = makeSink(initial)
        streams[partyId, default: [:]][ObjectIdentifier(stream)] = Subscriber(stream: stream, address: address, isMonitor: isMonitor,
                                                                              standing: standing, audience: audience,
                                                                              resumedAt: resumedAt, closesAt: closesAt,
                                                                              heardAt: keepaliveTick)
        admission.add(partyId: partyId, address: address, standing: standing, isMonitor: isMonitor)
        // The party's first stream here: its log is read once after what the stream covers. Another instance may have
        // committed an event since the caller read the log, and rung it while no stream here followed the party.
        if catchUp != nil, order.delivered[partyId] == nil, let resumedAt {
            order.delivered[partyId] = resumedAt
            readLog = catchUp
        }
        stream.whenFinished { [weak self, weak stream] in
            guard let self, let stream else { return }
            self.remove(stream, partyId: partyId)
        }
        if let drainRetry { Self.sendAway(stream, retry: drainRetry) }
        return stream
    }

    /// Sends the event to the party's streams its audience admits. A logged event a stream's first bytes already
    /// replayed (it committed before the stream opened, and is published after) is not sent twice. The service
    /// publishes in commit order, so each stream's ids only grow.
    func publish(_ event: ServerEvent) {
        publish(partyId: event.partyId) {
            Delivery(sequence: event.sequence, frame: event.frame(), audience: event.audience, endsParty: event.kind.type == EventKind.partyEnded.type)
        }
    }

    /// Events another instance committed, carried by the ring its commit sent (`Doorbell`), oldest first: sent as if
    /// published here, so one past a gap waits for the log as one of this instance's would.
    public func deliver(partyId: String, committed events: [LoggedEvent]) {
        for event in events { publish(partyId: partyId) { Delivery(logged: event) } }
    }

    /// The delivery is made only when the party has streams here (its frame is encoded then).
    private func publish(partyId: String, _ makeDelivery: () -> Delivery) {
        lock.lock()
        guard streams[partyId] != nil else { lock.unlock(); return }
        let delivery = makeDelivery()
        guard let catchUp, delivery.sequence != nil, order.delivered[partyId] != nil else {
            send(delivery, partyId: partyId)
            lock.unlock()
            closeEndedParties()
            return
        }
        let (ready, gap) = order.live(delivery, partyId: partyId)
        for delivery in ready { send(delivery, partyId: partyId) }
        lock.unlock()
        closeEndedParties()
        if gap { catchUp(partyId) }
    }

    /// Sends to the party's streams its audience admits, except those whose first bytes covered it; under `lock`.
    private func send(_ delivery: Delivery, partyId: String) {
        guard let listeners = streams[partyId] else { return }
        EngineMetrics.eventsPublished.add()
        // Only a delivery that reached every stream counts as the party's streams having heard (`pingIdle`): one a
        // stream skipped (its audience, or its first bytes covered it, maybe seconds ago with several instances)
        // left that stream as silent as before.
        var reachedAll = true
        for subscriber in listeners.values {
            guard delivery.audience?.admits(subscriber.audience) ?? true else { reachedAll = false; continue }
            if let sequence = delivery.sequence, let resumedAt = subscriber.resumedAt, sequence <= resumedAt { reachedAll = false; continue }
            subscriber.stream.send(delivery.frame)
        }
        if reachedAll { partyHeardAt[partyId] = keepaliveTick }
        if delivery.endsParty { endedParties.append(partyId) }
    }

    /// Ends the streams of the parties whose `party-ended` was just sent (off the lock: a closing stream calls back).
    private func closeEndedParties() {
        lock.lock()
        let ended = endedParties
        endedParties = []
        lock.unlock()
        for partyId in ended { closeParty(partyId) }
    }

    /// Called once a second: a keepalive comment to each stream that heard nothing for `keepaliveInterval` (it keeps
    /// proxies from closing idle streams, tells pages their stream lives, and reveals clients that left), and the
    /// end of ended parties' streams that are due. A stream its party's events reach needs no ping: those bytes do
    /// all of it. Before, every stream got a ping every 4 s at the same instant: with 10,000 streams a second fan-out
    /// of 10,000 writes, which delayed any event it met.
    public func pingIdle() {
        lock.lock()
        keepaliveTick += 1
        let tick = keepaliveTick, now = clock.now()
        var idle: [(partyId: String, key: ObjectIdentifier, stream: any EventSink)] = []
        var due: [any EventSink] = []
        for (partyId, listeners) in streams {
            let partyHeardAt = partyHeardAt[partyId] ?? 0
            for (key, subscriber) in listeners {
                if let closesAt = subscriber.closesAt, closesAt <= now {
                    due.append(subscriber.stream)
                } else if tick - max(partyHeardAt, subscriber.heardAt) >= Self.idleTicks {
                    idle.append((partyId, key, subscriber.stream))
                }
            }
        }
        for ping in idle { streams[ping.partyId]?[ping.key]?.heardAt = tick }
        lock.unlock()
        for stream in due { stream.close() }
        for ping in idle { ping.stream.send(Self.ping) }
    }

    /// Parties whose registered monitor (the TV) holds a stream here.
    public func partiesWithMonitor() -> Int {
        lock.lock()
        defer { lock.unlock() }
        return admission.partiesWithMonitor
    }

    /// The most bytes one stream has queued and not yet written: how far the slowest client lags behind.
    public func slowestBacklog() -> Int {
        lock.lock()
        let sinks = streams.values.flatMap { $0.values.map(\.stream) }
        lock.unlock()
        return sinks.reduce(0) { max($0, $1.pendingByteCount) }
    }

    /// Open streams: of one party, or of the whole server.
    public func streamCount(partyId: String? = nil) -> Int {
        lock.lock()
        defer { lock.unlock() }
        return partyId.map { streams[$0]?.count ?? 0 } ?? admission.total
    }

    /// Ends the streams of one party (after its `party-ended` was sent).
    private func closeParty(_ partyId: String) {
        lock.lock()
        let party = streams[partyId].map { Array($0.values) } ?? []
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

    /// The instance is going away: every stream is told when to come back (SSE `retry:`, a time drawn from `retry`
    /// in milliseconds for each, so a party's pages reconnect spread out instead of all in one instant, to whichever
    /// instance is there), then ends after what it has queued. Streams opened later get the same.
    public func drain(retry: ClosedRange<Int>) {
        lock.lock()
        drainRetry = retry
        let all = streams.values.flatMap(\.values)
        lock.unlock()
        for subscriber in all { Self.sendAway(subscriber.stream, retry: retry) }
    }

    private static func sendAway(_ stream: any EventSink, retry: ClosedRange<Int>) {
        // A block with only `retry:` sets the client's reconnection time and dispatches no event.
        stream.send(Array("retry: \(Int.random(in: retry))\n\n".utf8))
        stream.close()
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

    func streamsChanged(_ partyId: String, _ address: String, _ isMonitor: Bool) {
        lock.lock()
        let action = onStreamChange
        lock.unlock()
        action?(partyId, address, isMonitor)
    }

    private func unregister(_ stream: any EventSink, partyId: String) -> Subscriber? {
        lock.lock()
        defer { lock.unlock() }
        guard let subscriber = streams[partyId]?.removeValue(forKey: ObjectIdentifier(stream)) else { return nil }
        admission.remove(partyId: partyId, address: subscriber.address, standing: subscriber.standing, isMonitor: subscriber.isMonitor)
        if streams[partyId]?.isEmpty == true {
            streams[partyId] = nil
            partyHeardAt[partyId] = nil
            order.forget(partyId: partyId)
        }
        return subscriber
    }
}
