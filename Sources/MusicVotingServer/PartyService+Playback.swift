import Foundation
import PartyCore
import Providers

/// What a start or next ended in (SPEC: `playing` with the entry, or `empty`).
enum PlayOutcome {
    case playing(QueueEntry)
    case empty
}

extension PartyService {
    /// R21: playback commands need a connected monitor.
    func requireDevice(_ party: Party) throws {
        try locked { if !presence.isActive(partyId: party.id, at: now) { throw PartyError.noPlaybackDevice } }
    }

    func deviceActive(_ party: Party) -> Bool { locked { presence.isActive(partyId: party.id, at: now) } }

    /// R20: plays the first entry without removing anything; a paused current entry resumes.
    func start(_ party: Party) throws -> PlayOutcome {
        try requireDevice(party)
        return try startAndRefill(party)
    }

    /// Starts, then refills when nothing is left waiting behind the song that now plays (R15).
    func startAndRefill(_ party: Party) throws -> PlayOutcome {
        let outcome = try locked { try startLocked(partyId: party.id) }
        if case .playing = outcome { try refillIfDry(party) }
        return outcome
    }

    /// The party's stored playback state and queue, read together under the lock. An ended party has none:
    /// a request that found the party active before it ended must not write to it (issue 10, item 9).
    func storedPlayback(partyId: String) throws -> (Playback, Queue) {
        guard let party = try store.party(id: partyId), party.isActive else { throw PartyError.partyNotFound }
        var playback = party.playback
        let queue = try store.queue(partyId: partyId, currentEntryId: playback.currentEntryId)
        // A current entry that no longer exists (a crash between two writes of an older version) is no
        // song at all: forget it instead of "playing" silence.
        if playback.currentEntryId != nil, queue.current == nil { playback.stop() }
        return (playback, queue)
    }

    func startLocked(partyId: String) throws -> PlayOutcome {
        try store.transaction { try startTransition(partyId: partyId) }
    }

    private func startTransition(partyId: String) throws -> PlayOutcome {
        var (playback, queue) = try storedPlayback(partyId: partyId)
        if let current = queue.current {
            if !playback.isPlaying {
                playback.resume(at: now)
                try store.save(playback: playback, partyId: partyId)
                publishPlayback(partyId: partyId, playback)
            }
            return .playing(current)
        }
        guard let first = queue.ordered().first else { return .empty }
        playback.play(entryId: first.id, at: now)
        try store.save(playback: playback, partyId: partyId)
        publishTrackChanged(partyId: partyId, entry: first, playback: playback)
        return .playing(first)
    }

    /// R14/R20: deletes the current entry and plays the next; a repeat within 3 s is a no-op.
    func next(_ party: Party) throws -> PlayOutcome {
        try requireDevice(party)
        return try advance(party, force: false)
    }

    /// Fetches refill candidates first when the advance will leave nothing waiting (providers may be remote,
    /// so not under the lock), then advances.
    func advance(_ party: Party, force: Bool) throws -> PlayOutcome {
        let refill = try locked { try queue(of: party).waiting.count <= 1 } ? refillTracks(for: party) : []
        return try locked { try advanceLocked(partyId: party.id, refill: refill, force: force) }
    }

    /// Moves past the current entry, in one transaction. `force` skips the R20 debounce (host removal of the playing song).
    func advanceLocked(partyId: String, refill: [Track], force: Bool) throws -> PlayOutcome {
        try store.transaction { try advanceTransition(partyId: partyId, refill: refill, force: force) }
    }

    private func advanceTransition(partyId: String, refill: [Track], force: Bool) throws -> PlayOutcome {
        var (playback, queue) = try storedPlayback(partyId: partyId)
        if !force, playback.advanceIsDuplicate(at: now) {
            return queue.current.map(PlayOutcome.playing) ?? .empty
        }
        let finished = queue.current
        if let finished {
            try store.recordPlayed(uri: finished.track.uri, partyId: partyId, at: now)
            try store.deleteEntry(id: finished.id)
            queue.entries.removeAll { $0.id == finished.id }
            queue.currentEntryId = nil
        }
        if queue.entries.count <= 1 {
            try insertRefill(refill, into: &queue, partyId: partyId)
        }
        playback.lastAdvanceAt = now
        guard let upcoming = queue.ordered().first else {
            playback.stop()
            try store.save(playback: playback, partyId: partyId)
            publishTrackChanged(partyId: partyId, entry: nil, playback: playback)
            return .empty
        }
        playback.play(entryId: upcoming.id, at: now)
        try store.save(playback: playback, partyId: partyId)
        publishTrackChanged(partyId: partyId, entry: upcoming, playback: playback)
        return .playing(upcoming)
    }

    /// `PUT track/play`: the queued uri plays now; the entry it replaces is deleted (R14).
    func play(uri: String, party: Party) throws -> QueueEntry {
        try requireDevice(party)
        return try locked {
            try store.transaction {
                var (playback, queue) = try storedPlayback(partyId: party.id)
                guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
                if let current = queue.current, current.id != entry.id {
                    try store.recordPlayed(uri: current.track.uri, partyId: party.id, at: now)
                    try store.deleteEntry(id: current.id)
                }
                playback.play(entryId: entry.id, at: now)
                playback.lastAdvanceAt = now
                try store.save(playback: playback, partyId: party.id)
                publishTrackChanged(partyId: party.id, entry: entry, playback: playback)
                return entry
            }
        }
    }

    /// At start-up: a party whose current entry is gone (a database written by an older version that
    /// crashed between two writes) plays the next song if it was playing, else waits idle; never "playing" silence.
    func repairDanglingPlayback() throws {
        try locked {
            for party in try store.activeParties() where party.playback.currentEntryId != nil {
                let (repaired, queue) = try storedPlayback(partyId: party.id)
                guard repaired != party.playback else { continue }
                if party.playback.isPlaying, !queue.entries.isEmpty {
                    _ = try advanceLocked(partyId: party.id, refill: [], force: true)
                } else {
                    try store.save(playback: repaired, partyId: party.id)
                }
            }
        }
    }

    func pause(_ party: Party) throws -> Playback {
        try requireDevice(party)
        return try locked {
            var (playback, _) = try storedPlayback(partyId: party.id)
            playback.pause(at: now)
            try store.save(playback: playback, partyId: party.id)
            publishPlayback(partyId: party.id, playback)
            return playback
        }
    }

    /// R19: resume continues the current entry at its position; with nothing current it starts.
    /// That is exactly what `startLocked` does, so resume is start without the refill.
    func resume(_ party: Party) throws -> Playback {
        try requireDevice(party)
        return try locked {
            _ = try startLocked(partyId: party.id)
            return try storedPlayback(partyId: party.id).0
        }
    }

    func playback(of party: Party) throws -> Playback {
        try locked { try cachedParty(id: party.id)?.playback ?? party.playback }
    }

    func publishPlayback(partyId: String, _ playback: Playback) {
        driveRemotePlayer(partyId: partyId)
        hub.publish(ServerEvent(type: .playbackChanged, partyId: partyId, payload: [
            ("isPlaying", String(playback.isPlaying)), ("progressMs", String(playback.positionMs(at: now))),
        ]))
    }

    func publishTrackChanged(partyId: String, entry: QueueEntry?, playback: Playback) {
        var payload: [(String, String)] = [
            ("isPlaying", String(playback.isPlaying)), ("progressMs", String(playback.positionMs(at: now))),
        ]
        if let entry {
            payload += [("uri", entry.track.uri), ("name", entry.track.name),
                        ("artist", entry.track.artists.joined(separator: ", ")), ("durationMs", String(entry.track.durationMs))]
        }
        if let startedAt = playback.startedAt {
            payload.append(("playbackStartedAt", String(Int(startedAt.timeIntervalSince1970 * 1000))))
        }
        hub.publish(ServerEvent(type: .trackChanged, partyId: partyId, payload: payload))
        driveRemotePlayer(partyId: partyId)
        hub.publish(ServerEvent(type: .queueUpdated, partyId: partyId, payload: [("reason", "advance")]))
    }
}
