import Foundation
import PartyStore
import Synchronization

/// How an event committed on one instance reaches the streams held by another. An instance rings a doorbell, one
/// NOTIFY at most every `coalescing` (NOTIFY serializes notifying commits cluster-wide, so never one per like): when
/// the last ring is that old, inside the transaction that logged the events, with the events themselves
/// (`ringAtCommit`), which the others send on at once; otherwise after its commits, naming the parties and their
/// newest sequence numbers, and an instance with streams of a rung party reads the log rows after the last one it
/// sent them. The hub sends them in sequence order. A doorbell lost on the way (the listening session dropped, or a
/// NOTIFY that never came) is healed by reading every served party's version again after a reconnect and every
/// `pollInterval`.
///
/// One thread owns the `DoorbellSession` (its database session) and waits on its socket and a wake-up pipe with poll(2).
/// `@unchecked Sendable`: the session is touched only by that thread; what callers hand over sits in `handedOver`.
public final class Doorbell: @unchecked Sendable {
    public static let coalescing: TimeInterval = 0.02
    /// This doorbell's `coalescing` (a test widens it, so that "within it" does not hang on a busy machine's scheduler).
    let coalescing: TimeInterval
    public static let pollInterval: TimeInterval = 2
    /// After a lost session: the next attempt to listen again.
    static let reconnectDelay: TimeInterval = 0.5

    private struct HandedOver {
        /// Parties this instance committed events of since its last ring, with their newest sequence number.
        var rung: [String: Int64] = [:]
        /// Events not logged, for the others' streams of each party (the newest progress per party: it replaces the last).
        var relayed: [String: String] = [:]
        /// Parties whose log the hub asked to read (a gap in what it sent).
        var catchUp: Set<String> = []
        var stopping = false
        /// When this instance last rang, by itself or with a commit (`ringAtCommit`): the next ring waits `coalescing`.
        var lastRing = Date.distantPast
        /// Whether commits may ring (`ringAtCommit`): not while PostgreSQL's notification queue is filling.
        var commitsRing = true
    }

    private let channel: any DoorbellSession
    private let hub: EventHub
    /// Tells this instance's own doorbells from the others' (a process's sessions change on reconnect).
    private let instance = UUID().uuidString.prefix(8).lowercased()
    private let handedOver = Mutex(HandedOver())
    /// The thread sleeps in poll(2) on `wake[0]`; a write to `wake[1]` wakes it.
    private let wake: (read: Int32, write: Int32)
    private let finished = DispatchSemaphore(value: 0)

    /// Starts listening on `session` on its own thread (a failure is the caller's start-up error).
    public init(session: any DoorbellSession, hub: EventHub, coalescing: TimeInterval = Doorbell.coalescing) throws {
        channel = session
        self.coalescing = coalescing
        self.hub = hub
        var descriptors: [Int32] = [0, 0]
        guard pipe(&descriptors) == 0 else {
            throw DatabaseError(code: 0, message: "doorbell: pipe: \(String(cString: strerror(errno)))")
        }
        for descriptor in descriptors {
            _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
            _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        }
        wake = (descriptors[0], descriptors[1])
        hub.followLog { [weak self] partyId in self?.catchUp(partyId: partyId) }
        let thread = Thread { [self] in run() }
        thread.name = "musicvoting.doorbell"
        thread.start()
    }

    deinit {
        close(wake.read)
        close(wake.write)
    }

    /// Events of `partyId` up to `sequence` committed here: other instances hear of it with the next ring.
    public func ring(partyId: String, sequence: Int64) {
        let first = handedOver.withLock { handedOver in
            defer { handedOver.rung[partyId] = max(handedOver.rung[partyId] ?? 0, sequence) }
            return handedOver.rung.isEmpty
        }
        if first { wakeUp() }
    }

    /// An event that is not logged (the monitor's progress), sent to the others with the next ring; a newer one of the
    /// party replaces one not sent yet (stale a second later).
    func relay(partyId: String, message: String) {
        let first = handedOver.withLock { handedOver in
            defer { handedOver.relayed[partyId] = message }
            return handedOver.rung.isEmpty && handedOver.relayed.isEmpty
        }
        if first { wakeUp() }
    }

    /// The ring a commit carries instead of a later one of its own: nil unless this instance's last ring is at least
    /// `coalescing` old (a notifying commit holds PostgreSQL's notify lock through its flush, so at most one every
    /// `coalescing`). The others hear it the moment the commit is done, as early as this instance's own streams, and
    /// it carries the events themselves, so they need not read the log. One line, as a ring after a commit begins
    /// (`instance party:sequence …`, naming the transaction's parties and those rung since the last ring), then a
    /// space, then a tab before each event: `party sequence type message`. An instance that reads only the ring's
    /// words (an older build, during a rolling replacement) reads the log, as after any ring; the events' words are no
    /// ring to it (a message is JSON with its strings quoted, so no word of it is `party:number`). An event scoped to
    /// an audience, or past the payload's room, is only named by the ring's words.
    func ringAtCommit(_ events: ArraySlice<ServerEvent>) -> String? {
        guard events.contains(where: { $0.sequence != nil }) else { return nil }
        let now = Date()
        let claimed = handedOver.withLock { handedOver -> (previous: Date, waiting: [String: Int64])? in
            guard handedOver.commitsRing, now >= handedOver.lastRing.addingTimeInterval(coalescing) else { return nil }
            defer { handedOver.lastRing = now }
            // Named here too, so they do not wait for the doorbell's next ring (which still names them: the commit
            // may roll back).
            return (handedOver.lastRing, handedOver.rung)
        }
        guard let claimed else { return nil }
        var newest = claimed.waiting
        var carried = ""
        var skipped: Set<String> = []
        for event in events {
            guard let sequence = event.sequence else { continue }
            newest[event.partyId] = max(newest[event.partyId] ?? 0, sequence)
            let message = event.encodedMessage ?? event.message
            let line = "\t\(event.partyId) \(sequence) \(event.kind.type) \(message)"
            // After a party's first event left out, its later ones are too: the log gives them in order.
            if event.audience == nil, !skipped.contains(event.partyId), !message.contains("\n"), !message.contains("\t"),
               carried.utf8.count + line.utf8.count <= Self.payloadLimit {
                carried += line
            } else {
                skipped.insert(event.partyId)
            }
        }
        var payload = String(instance)
        for (partyId, sequence) in newest { payload += " \(partyId):\(sequence)" }
        // A space before the first tab: the ring's last word stays apart for an instance that splits at spaces only.
        if !carried.isEmpty { payload += " " }
        guard payload.utf8.count + carried.utf8.count <= Self.payloadLimit else {
            // Too many parties for one payload: rung after the commit, as any other.
            handedOver.withLock { if $0.lastRing == now { $0.lastRing = claimed.previous } }
            return nil
        }
        EngineMetrics.doorbellRings.add(at: 0)
        return payload + carried
    }

    /// The hub holds an event back past a gap: read the party's log.
    func catchUp(partyId: String) {
        handedOver.withLock { _ = $0.catchUp.insert(partyId) }
        wakeUp()
    }

    /// Ends the thread (and so the session) and waits for it.
    public func stop() {
        let wasStopping = handedOver.withLock { handedOver in defer { handedOver.stopping = true }; return handedOver.stopping }
        guard !wasStopping else { return }
        wakeUp()
        finished.wait()
    }

    private func wakeUp() {
        var byte: UInt8 = 1
        _ = write(wake.write, &byte, 1)
    }

    // MARK: The thread

    private func run() {
        var lastPoll = Date()
        var readAll = true
        while !handedOver.withLock({ $0.stopping }) {
            do {
                guard let started = try channel.listen() else {
                    wait(for: Self.reconnectDelay, onSocket: false)
                    continue
                }
                if started { readAll = true }
            } catch {
                Log.error("doorbell: cannot listen: \(error)")
                wait(for: Self.reconnectDelay, onSocket: false)
                continue
            }
            do {
                if readAll {
                    // Listening again (or for the first time): whatever was rung meanwhile is gone, read it all.
                    try readServedParties()
                    readAll = false
                    lastPoll = Date()
                }
                let now = Date()
                let ringDue = handedOver.withLock { !$0.rung.isEmpty || !$0.relayed.isEmpty
                    ? $0.lastRing.addingTimeInterval(coalescing) : .distantFuture }
                let pollDue = lastPoll.addingTimeInterval(Self.pollInterval)
                // A query above may have read other instances' doorbells into libpq's buffer, where poll(2) on the
                // socket no longer sees them (they waited for the next poll, up to 2 s): take those before sleeping.
                let buffered = try channel.receive()
                for payload in buffered { heard(payload) }
                if buffered.isEmpty || handedOver.withLock({ $0.catchUp.isEmpty }) {
                    wait(for: min(ringDue, pollDue).timeIntervalSince(now), onSocket: true)
                }
                for payload in try channel.receive() { heard(payload) }
                try ringPending()
                if Date() >= pollDue {
                    try readServedParties()
                    lastPoll = Date()
                }
                try readRequestedLogs()
            } catch {
                // The session is gone (pg_terminate_backend, a restart): listen again, then read everything.
                Log.error("doorbell: \(error)")
                readAll = true
            }
        }
        finished.signal()
    }

    /// Sleeps up to `seconds` in poll(2), on the wake-up pipe and (when listening) the session's socket.
    private func wait(for seconds: TimeInterval, onSocket: Bool) {
        var descriptors = [pollfd(fd: wake.read, events: Int16(POLLIN), revents: 0)]
        if onSocket, channel.socket >= 0 { descriptors.append(pollfd(fd: channel.socket, events: Int16(POLLIN), revents: 0)) }
        let milliseconds = Int32(max(0, min(seconds, 60)) * 1000)
        _ = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
        var buffer = [UInt8](repeating: 0, count: 64)
        while read(wake.read, &buffer, buffer.count) > 0 {}
    }

    /// Sends what was rung since the last ring as one NOTIFY (several when it is long): `instance party:seq …`; and
    /// the relayed events, one a line after a first line `instance relay` (a message is one line of JSON).
    private func ringPending() throws {
        let now = Date()
        let (rung, relayed) = handedOver.withLock { handedOver in
            guard now >= handedOver.lastRing.addingTimeInterval(coalescing), !handedOver.rung.isEmpty || !handedOver.relayed.isEmpty else {
                return ([String: Int64](), [String: String]())
            }
            defer { handedOver.rung = [:]; handedOver.relayed = [:]; handedOver.lastRing = now }
            return (handedOver.rung, handedOver.relayed)
        }
        guard !rung.isEmpty || !relayed.isEmpty else { return }
        do {
            var payloads: [String] = []
            var payload = String(instance)
            for (partyId, sequence) in rung {
                let item = " \(partyId):\(sequence)"
                if payload.utf8.count + item.utf8.count > Self.payloadLimit {
                    payloads.append(payload)
                    payload = String(instance)
                }
                payload += item
            }
            if !rung.isEmpty { payloads.append(payload) }
            payload = instance + Self.relayHeader
            for (partyId, message) in relayed where partyId.utf8.count + message.utf8.count < Self.payloadLimit {
                let item = "\n\(partyId) \(message)"
                if payload.utf8.count + item.utf8.count > Self.payloadLimit {
                    payloads.append(payload)
                    payload = instance + Self.relayHeader
                }
                payload += item
            }
            if !relayed.isEmpty { payloads.append(payload) }
            // One statement, so one transaction, however many payloads.
            try channel.notify(payloads)
            EngineMetrics.doorbellRings.add(at: 0)
        } catch {
            // Not rung: ring it with the next one (the others' polls find it meanwhile).
            handedOver.withLock { handedOver in for (partyId, sequence) in rung { handedOver.rung[partyId] = max(handedOver.rung[partyId] ?? 0, sequence) } }
            throw error
        }
    }

    static let relayHeader = " relay"
    /// A payload's bytes at most: PostgreSQL takes fewer than 8,000.
    static let payloadLimit = 7_000

    /// Another instance's doorbell: the parties served here that it names past what they were sent are read; relayed
    /// events go to the party's streams here at once.
    private func heard(_ payload: String) {
        let lines = payload.split(separator: "\n", omittingEmptySubsequences: false)
        if lines.count > 1 || payload.hasSuffix(Self.relayHeader) {
            guard let first = lines.first, first.hasSuffix(Self.relayHeader), first.dropLast(Self.relayHeader.count) != instance else { return }
            for line in lines.dropFirst() {
                guard let space = line.firstIndex(of: " ") else { continue }
                hub.deliver(partyId: String(line[..<space]), live: String(line[line.index(after: space)...]))
            }
            return
        }
        let segments = payload.split(separator: "\t", omittingEmptySubsequences: false)
        let words = segments[0].split(separator: " ")
        guard let sender = words.first, sender != instance else { return }
        EngineMetrics.doorbellRings.add(at: 1)
        if segments.count > 1 { deliver(carried: segments.dropFirst()) }
        let served = hub.servedParties()
        var behind: [String] = []
        for word in words.dropFirst() {
            let parts = word.split(separator: ":")
            guard parts.count == 2, let sequence = Int64(parts[1]) else { continue }
            let partyId = String(parts[0])
            if let sent = served[partyId], sent < sequence { behind.append(partyId) }
        }
        if !behind.isEmpty { handedOver.withLock { $0.catchUp.formUnion(behind) } }
    }

    /// The events a commit's ring carried (`ringAtCommit`) go to their parties' streams here at once, in order.
    private func deliver(carried segments: ArraySlice<Substring>) {
        let served = hub.servedParties()
        var carried: [(partyId: String, events: [LoggedEvent])] = []
        for segment in segments {
            let fields = segment.split(separator: " ", maxSplits: 3, omittingEmptySubsequences: false)
            guard fields.count == 4, let sequence = Int64(fields[1]) else { continue }
            let partyId = String(fields[0])
            guard let sent = served[partyId], sent < sequence else { continue }
            let event = LoggedEvent(sequence: sequence, type: String(fields[2]), message: String(fields[3]), createdAt: Date())
            if let index = carried.firstIndex(where: { $0.partyId == partyId }) {
                carried[index].events.append(event)
            } else {
                carried.append((partyId, [event]))
            }
        }
        for (partyId, events) in carried { hub.deliver(partyId: partyId, committed: events) }
    }

    /// PostgreSQL's notification queue holds what the slowest listening session has not read (a frozen instance's
    /// session reads nothing), and once it is full a notifying commit fails. Past `queueLimit` commits stop ringing,
    /// so a like never fails for it; the doorbell's own rings, which may fail alone, take their place.
    static let queueLimit = 0.25

    private func checkQueue() throws {
        let usage = try channel.notificationQueueUsage()
        let ring = usage < Self.queueLimit
        let changed = handedOver.withLock { handedOver in defer { handedOver.commitsRing = ring }; return handedOver.commitsRing != ring }
        guard changed else { return }
        if ring {
            Log.info("doorbell: PostgreSQL's notification queue is \(Int(usage * 100)) % full again: commits ring with their events")
        } else {
            Log.error("doorbell: PostgreSQL's notification queue is \(Int(usage * 100)) % full (a listening session reads nothing: "
                      + "a frozen instance?): commits no longer ring, the doorbell rings after them")
        }
    }

    /// The poll, and the reading after a reconnect: every served party whose log moved past what it was sent.
    private func readServedParties() throws {
        try checkQueue()
        let served = hub.servedParties()
        guard !served.isEmpty else { return }
        let newest = try channel.lastEventSequences(partyIds: Array(served.keys))
        let behind = served.compactMap { partyId, sent in (newest[partyId] ?? 0) > sent ? partyId : nil }
        EngineMetrics.pollCatchUps.add(behind.count)
        if !behind.isEmpty { handedOver.withLock { $0.catchUp.formUnion(behind) } }
    }

    /// Reads the log of every party asked for after what its streams were sent, and hands the rows to the hub.
    private func readRequestedLogs() throws {
        let parties = handedOver.withLock { handedOver in defer { handedOver.catchUp = [] }; return handedOver.catchUp }
        for (index, partyId) in parties.enumerated() {
            guard let sent = hub.deliveredSequence(partyId: partyId) else { continue }
            do {
                let events = try channel.events(partyId: partyId, after: sent, limit: EventLog.replayLimit)
                EngineMetrics.doorbellLogReads.add()
                hub.deliver(partyId: partyId, logged: events)
            } catch {
                handedOver.withLock { $0.catchUp.formUnion(parties.dropFirst(index)) }
                throw error
            }
        }
    }
}

/// The database session a `Doorbell` listens, rings and reads the log on (PostgreSQL: LISTEN/NOTIFY).
public protocol DoorbellSession: AnyObject {
    /// The socket to poll for notifications; only meaningful while `isListening`.
    var socket: Int32 { get }
    /// Whether the session that began listening is still the open one.
    var isListening: Bool { get }
    /// Opens the session again if it was lost and listens in it: nil while the server is out of reach, true when it
    /// began listening now (what was rung before is gone), false when it already listened.
    func listen() throws -> Bool?
    /// The payloads rung by other sessions since the last call.
    func receive() throws -> [String]
    /// Rings: every listening session hears each of `payloads`, sent in one transaction.
    func notify(_ payloads: [String]) throws
    /// The logged events after `sequence`, oldest first, at most `limit`.
    func events(partyId: String, after sequence: Int64, limit: Int) throws -> [LoggedEvent]
    /// The newest sequence number of each of `partyIds` that exists.
    func lastEventSequences(partyIds: [String]) throws -> [String: Int64]
    /// How full PostgreSQL's notification queue is, 0 to 1.
    func notificationQueueUsage() throws -> Double
}
