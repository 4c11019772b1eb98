import Foundation
import PartyCore
import PartyStore
import Providers
import Synchronization
import ClientNetwork

extension PartyService {
    public func deviceActive(_ party: Party) -> Bool { withState { $0.deviceActive(partyId: party.id) } }

    /// Whether a TV holds the party's monitor token (paired, connected or not).
    public func tvPaired(_ party: Party) throws -> Bool { try withState { try $0.store.monitorToken(partyId: party.id) != nil } }

    /// R20: plays the first entry; refills when nothing waits behind it (R15).
    public func start(_ party: Party) throws -> PlayOutcome {
        try withState { try $0.requireDevice(party) }
        // ▶ on an empty party starts the refill (R15's source) instead of doing nothing; when there is
        // none, the answer stays `empty` and a `playback-error` has said why.
        if try withState({ try $0.queue(of: party).entries.isEmpty }) { try refillIfDry(party) }
        return try startAndRefill(party)
    }

    public func startAndRefill(_ party: Party) throws -> PlayOutcome {
        let outcome = try withState { try $0.start(partyId: party.id) }
        if case .playing = outcome { try refillIfDry(party) }
        return outcome
    }

    /// R14/R20: deletes the current entry and plays the next, as `AdvanceRequest` decides.
    public func next(_ party: Party, request: AdvanceRequest) throws -> PlayOutcome {
        try withState { try $0.requireDevice(party) }
        return try advance(party, request: request)
    }

    /// Fetches refill candidates first when the advance will leave nothing waiting (providers may be remote,
    /// so not under the lock), then advances.
    public func advance(_ party: Party, request: AdvanceRequest) throws -> PlayOutcome {
        let refill = try withState { try $0.queue(of: party).waiting.count <= 1 } ? refillTracks(for: party) : []
        return try withState { try $0.advance(partyId: party.id, refill: refill, request: request) }
    }

    public func play(uri: String, party: Party) throws -> QueueEntry { try withState { try $0.play(uri: uri, party: party) } }

    public func pause(_ party: Party) throws -> Playback { try withState { try $0.pause(party) } }

    public func resume(_ party: Party) throws -> Playback { try withState { try $0.resume(party) } }

    public func playback(of party: Party) throws -> Playback { try withState { try $0.playback(of: party) } }

    /// At start-up, or when this instance takes the upkeep over: repairs dangling playback; `listen` (one
    /// instance alone) also stalls every playing party as `no-monitor` until its TV, which must reconnect, reports.
    /// Several instances: the TVs stay connected to the others, and the owner of each party's timer shard watches its
    /// player from every instance's records (`SharedPlayers.watch`).
    public func repairDanglingPlayback(listen: Bool = true) throws {
        try withState { state in
            try state.repairDanglingPlayback()
            if listen { try state.listenToActiveParties() }
        }
    }

    /// Several instances: whether this one runs the party upkeep now (nil: it is alone, and always does).
    public var runsUpkeep: Bool? {
        get { upkeepOwner.withLock { $0 } }
        set { upkeepOwner.withLock { $0 = newValue } }
    }

    /// R15 after a start, and `prepare-next`: refills when nothing is waiting.
    public func refillIfDry(_ party: Party) throws {
        guard try withState({ try $0.queue(of: party).waiting.isEmpty }) else { return }
        let tracks = refillTracks(for: party)
        try withState { state in
            try state.transaction { state in
                // Two instances refilling one party at once take turns; the second finds it full.
                try state.store.lockParty(id: party.id)
                var queue = try state.queue(of: party)
                guard queue.waiting.isEmpty else { return }
                try state.insertRefill(tracks, into: &queue, partyId: party.id)
            }
        }
    }

    /// R15 source: the default playlist if set (and not empty), else the provider's charts. A provider that
    /// fails is reported as `playback-error`, so a queue that runs dry is never a silent mystery.
    public func refillTracks(for party: Party) -> [Track] {
        guard let provider = try? provider(for: party) else { return [] }
        let stored = withState { try? $0.store.party(id: party.id) }
        if let playlistId = stored?.defaultPlaylistId ?? party.defaultPlaylistId,
           let tracks = try? provider.playlistTracks(id: playlistId), !tracks.isEmpty {
            return tracks
        }
        do {
            return try provider.charts()
        } catch {
            let reason = error.userMessage
            hub.publish(ServerEvent(kind: .playbackError(message: "Kein Nachschub für die Warteschlange: \(reason)", code: "refill_failed"), partyId: party.id,
                                    at: now))
            return []
        }
    }
}
