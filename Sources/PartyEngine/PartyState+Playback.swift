import Foundation
import PartyCore

/// What a start or next ended in (SPEC: `playing` with the entry, or `empty`).
public enum PlayOutcome: Sendable {
    case playing(QueueEntry)
    case empty
}

extension PartyState {
    /// R21: whether the party's monitor is connected (an open monitor stream or a fresh heartbeat).
    func deviceActive(partyId: String) -> Bool {
        players.deviceActive(partyId: partyId, state: self)
    }

    /// R21: playback commands need a connected monitor.
    func requireDevice(_ party: Party) throws {
        if !deviceActive(partyId: party.id) { throw PartyError.noPlaybackDevice }
    }

    /// R20: plays the first entry without removing anything; a paused current entry resumes. One transaction.
    mutating func start(partyId: String) throws -> PlayOutcome {
        try transaction { state in
            var (playback, queue) = try state.storedPlayback(partyId: partyId)
            if let current = queue.current {
                if !playback.isPlaying {
                    playback.resume(at: state.now)
                    try state.savePlayback(playback, partyId: partyId)
                    state.publishPlayback(partyId: partyId, playback)
                }
                return .playing(current)
            }
            guard let first = queue.ordered().first else { return .empty }
            playback.play(entryId: first.id, at: state.now)
            try state.savePlayback(playback, partyId: partyId)
            state.publishTrackChanged(partyId: partyId, entry: first, playback: playback)
            return .playing(first)
        }
    }

    /// R14/R20: deletes the current entry and plays the next, in one transaction, when `request` says so
    /// (`AdvanceRequest`); otherwise a no-op answering the current state. `refill` was fetched before the lock.
    mutating func advance(partyId: String, refill: [Track], request: AdvanceRequest) throws -> PlayOutcome {
        try transaction { state in
            var (playback, queue) = try state.storedPlayback(partyId: partyId)
            let now = state.now
            guard playback.accepts(request, at: now) else {
                return queue.current.map(PlayOutcome.playing) ?? .empty
            }
            if let finished = queue.current {
                try state.store.recordPlayed(uri: finished.track.uri, partyId: partyId, at: now)
                try state.remember(finished, request.ending, playback: playback, partyId: partyId)
                // The next song is chosen by the order with this one played: the order every page showed while it
                // played, where the playing song counted as its adder's (R9b).
                if try state.countPlayed(finished, partyId: partyId) { queue.fairness?.playedByAdder[finished.addedBy, default: 0] += 1 }
                try state.store.deleteEntry(id: finished.id)
                queue.entries.removeAll { $0.id == finished.id }
                queue.currentEntryId = nil
            }
            if queue.entries.count <= 1 { try state.insertRefill(refill, into: &queue, partyId: partyId) }
            playback.lastAdvanceAt = now
            guard let upcoming = queue.ordered().first else {
                playback.stop()
                try state.savePlayback(playback, partyId: partyId)
                state.publishTrackChanged(partyId: partyId, entry: nil, playback: playback)
                return .empty
            }
            playback.play(entryId: upcoming.id, at: now)
            try state.savePlayback(playback, partyId: partyId)
            state.publishTrackChanged(partyId: partyId, entry: upcoming, playback: playback)
            return .playing(upcoming)
        }
    }

    /// `PUT track/play`: the queued uri plays now; the entry it replaces is deleted (R14).
    mutating func play(uri: String, party: Party) throws -> QueueEntry {
        try requireDevice(party)
        return try transaction { state in
            var (playback, queue) = try state.storedPlayback(partyId: party.id)
            guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
            if let current = queue.current, current.id != entry.id {
                try state.store.recordPlayed(uri: current.track.uri, partyId: party.id, at: state.now)
                try state.remember(current, .skipped, playback: playback, partyId: party.id)
                try state.countPlayed(current, partyId: party.id)
                try state.store.deleteEntry(id: current.id)
            }
            playback.play(entryId: entry.id, at: state.now)
            playback.lastAdvanceAt = state.now
            try state.savePlayback(playback, partyId: party.id)
            state.publishTrackChanged(partyId: party.id, entry: entry, playback: playback)
            return entry
        }
    }

    /// R33: the song leaving the stage joins the party's history while the party keeps one (read in the transaction:
    /// the host may have changed the setting on another instance).
    func remember(_ entry: QueueEntry, _ ending: PlayedSong.Ending, playback: Playback, partyId: String) throws {
        guard try store.party(id: partyId)?.settings.history == true else { return }
        let startedAt = now.addingTimeInterval(-Double(playback.positionMs(at: now)) / 1000)
        try store.recordPlayedSong(PlayedSong(track: entry.track, startedAt: startedAt, likeCount: entry.likeCount, ended: ending),
                                   partyId: partyId)
    }

    /// R9b: a guest's song that played (or was skipped) counts for its adder, whether or not fair order is on now,
    /// so turning it on later is fair from the start.
    /// Returns whether it counted.
    @discardableResult
    func countPlayed(_ entry: QueueEntry, partyId: String) throws -> Bool {
        guard !entry.autofilled, !entry.addedBy.isEmpty else { return false }
        try store.countPlayed(adder: entry.addedBy, partyId: partyId)
        return true
    }

    mutating func pause(_ party: Party) throws -> Playback {
        try requireDevice(party)
        return try transaction { state in
            var (playback, _) = try state.storedPlayback(partyId: party.id)
            playback.pause(at: state.now)
            try state.savePlayback(playback, partyId: party.id)
            state.publishPlayback(partyId: party.id, playback)
            return playback
        }
    }

    /// R19: resume continues the current entry at its position; with nothing current it starts.
    /// That is exactly what `start` does, so resume is start without the refill.
    mutating func resume(_ party: Party) throws -> Playback {
        try requireDevice(party)
        _ = try start(partyId: party.id)
        return try storedPlayback(partyId: party.id).0
    }

    mutating func playback(of party: Party) throws -> Playback {
        try cachedParty(id: party.id)?.playback ?? party.playback
    }

    /// At start-up: a party whose current entry is gone (a database written by an older version that
    /// crashed between two writes) plays the next song if it was playing, else waits idle; never "playing" silence.
    mutating func repairDanglingPlayback() throws {
        for party in try store.activeParties() where party.playback.currentEntryId != nil {
            let (repaired, queue) = try storedPlayback(partyId: party.id)
            guard repaired != party.playback else { continue }
            if party.playback.isPlaying, !queue.entries.isEmpty {
                _ = try advance(partyId: party.id, refill: [], request: .host)
            } else {
                try savePlayback(repaired, partyId: party.id)
            }
        }
    }

    /// Adds the refill tracks `Refill.choose` picks, marked `autofilled` (R9 sorts them below guest songs).
    mutating func insertRefill(_ tracks: [Track], into queue: inout Queue, partyId: String) throws {
        let chosen = Refill.choose(from: tracks, queue: queue, blacklist: try store.blacklist(partyId: partyId),
                                   recentlyPlayed: try store.recentlyPlayed(partyId: partyId))
        for track in chosen {
            let id = try store.insertEntry(partyId: partyId, track: track, addedAt: now, addedBy: "autofill", autofilled: true)
            queue.entries.append(QueueEntry(id: id, track: track, addedAt: now, addedBy: "autofill", autofilled: true))
        }
        if !chosen.isEmpty { publish(.queueUpdated(.refill), partyId: partyId) }
    }

    mutating func publishPlayback(partyId: String, _ playback: Playback) {
        drivePlayer(partyId: partyId)
        publish(.playbackChanged(isPlaying: playback.isPlaying, progressMs: playback.positionMs(at: now)), partyId: partyId)
    }

    mutating func publishTrackChanged(partyId: String, entry: QueueEntry?, playback: Playback) {
        publish(.trackChanged(.init(isPlaying: playback.isPlaying, progressMs: playback.positionMs(at: now), entry: entry,
                                    playbackStartedAt: playback.startedAt)), partyId: partyId)
        drivePlayer(partyId: partyId)
        publish(.queueUpdated(.advance), partyId: partyId)
    }
}
