import Foundation
import PartyStore

/// What each party's event log keeps, and how a stream that resumes is answered from it.
enum EventLog {
    /// Every party keeps at least its last `keptEvents` events, and every event of the last `keptFor`.
    static let keptEvents = 1_000
    static let keptFor: TimeInterval = 15 * 60
    /// A client that missed more than this reloads instead (its stream's buffer would not hold the replay anyway).
    static let replayLimit = keptEvents
    /// And one whose replay is larger than this: what a stream holds beside its buffer for live events (the first
    /// bytes are exempt from it, `EventStream`), enough for `replayLimit` events of up to 256 bytes.
    static let replayBytes = 256 * 1024

    /// A server event (not logged) that tells a client its `Last-Event-ID` cannot be answered from the log (older
    /// than what is kept, or never given out): it reloads the party's state, as after a fresh connect. Its id is
    /// the party's newest, so the client resumes from there next time.
    static let resyncType = "resync"
}

extension PartyState {
    /// Records an event, sent once the lock is released. A logged kind joins the party's log in the transaction
    /// open now (`transaction` appends them before it commits); outside one, an event not tied to a write
    /// (`device-changed`: the monitor came or went) is appended on its own.
    mutating func publish(_ kind: EventKind, partyId: String, source: String = "server", audience: Audience? = nil) {
        var event = ServerEvent(kind: kind, partyId: partyId, source: source, audience: audience, at: now)
        if logs(kind), openTransactions == 0 {
            do {
                let logged = event.logged
                event.sequence = try store.transaction { try store.appendEvents([logged], partyId: partyId).first }
                event.encodedMessage = logged.message
            } catch {
                Log.error("event log: \(kind.type) for \(partyId) is sent without an id: \(error)")
            }
        }
        effects.events.append(event)
    }

    /// Whether an event of `kind` goes to the party's log: what clients resume with and, with several instances,
    /// every event (the log is how it reaches the streams held by the others, in order).
    func logs(_ kind: EventKind) -> Bool { channel.logs(kind) }

    /// Appends the logged events recorded since `index` that have no number yet, one batch per party, and numbers
    /// them. Runs inside the transaction that made the change, so an event exists if and only if its change did.
    mutating func appendLoggedEvents(since index: Int) throws {
        // Plain loops: a closure here captured the whole state, and copied it (a group commit's batch).
        var pending: [(partyId: String, positions: [Int])] = []
        for position in effects.events.indices.dropFirst(index) {
            let event = effects.events[position]
            guard logs(event.kind), event.sequence == nil else { continue }
            if let party = pending.firstIndex(where: { $0.partyId == event.partyId }) {
                pending[party].positions.append(position)
            } else {
                pending.append((event.partyId, [position]))
            }
        }
        for (partyId, positions) in pending {
            var logged: [LoggedEvent] = []
            logged.reserveCapacity(positions.count)
            for position in positions { logged.append(effects.events[position].logged) }
            let sequences = try store.appendEvents(logged, partyId: partyId)
            for (index, position) in positions.enumerated() {
                effects.events[position].sequence = sequences[index]
                effects.events[position].encodedMessage = logged[index].message
            }
        }
    }

    /// Rings the other instances with the commit when the channel takes the events logged since `index` along
    /// (`EventChannel.ringAtCommit`), so they are not rung again after it.
    mutating func ringAtCommit(since index: Int) throws {
        guard let payload = channel.ringAtCommit(effects.events[index...]) else { return }
        try store.ringInstances(payload)
        for position in effects.events.indices.dropFirst(index) where effects.events[position].sequence != nil {
            effects.events[position].rungAtCommit = true
        }
    }

    /// What a stream of the party starts with: the preamble naming the party's newest sequence number, then the
    /// logged events after `lastEventId` its audience may hear. An id the log cannot answer (older than it keeps,
    /// more than `replayLimit` or `replayBytes` behind, or never given out) gets a `resync` event instead. Returns the bytes and the
    /// newest sequence number they cover.
    func streamStart(partyId: String, lastEventId: Int64?, audience: Audience) throws -> (bytes: [UInt8], lastSequence: Int64?) {
        let head = try store.lastEventSequence(partyId: partyId) ?? 0
        var bytes = EventHub.preamble(lastSequence: head)
        guard let lastEventId, lastEventId != head else { return (bytes, head) }
        let missed = lastEventId >= 0 && lastEventId < head
            ? try store.events(partyId: partyId, after: lastEventId, limit: EventLog.replayLimit + 1) : []
        guard missed.first?.sequence == lastEventId + 1, missed.count <= EventLog.replayLimit else {
            bytes += resyncFrame(partyId: partyId, lastSequence: head, reason: lastEventId > head || lastEventId < 0 ? "unknown" : "expired")
            return (bytes, head)
        }
        // The preamble names the id it resumes after, not the newest: a stream cut inside a long replay must resume
        // where it was cut (EventSource takes an id line without data as its lastEventId). The newest id follows the
        // replay when the audience filtered the last events out.
        bytes = EventHub.preamble(lastSequence: lastEventId)
        var replayedTo = lastEventId
        for event in missed where event.admits(audience) && !EventKind.liveOnlyTypes.contains(event.type) {
            bytes += ServerEvent.frame(id: event.sequence, message: event.message)
            replayedTo = event.sequence
        }
        // The stream covers what the log held when read, which may be past `head` (another instance committed since):
        // the hub skips what the stream covers (sent again, it came twice) and sends the rest.
        let covered = max(head, missed.last?.sequence ?? head)
        if replayedTo != covered { bytes += Array("id: \(covered)\n\n".utf8) }
        guard bytes.count <= EventLog.replayBytes else {
            return (EventHub.preamble(lastSequence: head) + resyncFrame(partyId: partyId, lastSequence: head, reason: "expired"), head)
        }
        return (bytes, covered)
    }

    private func resyncFrame(partyId: String, lastSequence: Int64, reason: String) -> [UInt8] {
        let message = ServerEvent.message(type: EventLog.resyncType, at: now, payload: [("partyId", partyId), ("source", "server"), ("reason", reason)])
        return ServerEvent.frame(id: lastSequence, message: message)
    }
}
