import Foundation
import PartyCore

/// R20a: what the server last heard of a party whose current song should be heard (playing or stalled).
struct Listening {
    /// The last audible progress report, or when the song (re)started: the grace before `monitor-silent`.
    var heardAt: Date
    /// Where the audio was at `reportedAt` (the start position until the monitor reports).
    var positionMs: Int
    var reportedAt: Date
}

extension PartyState {
    /// Saves the playback and keeps R20a's bookkeeping in step: a song that (re)starts gets a fresh grace, a
    /// paused or finished party is no longer listened to.
    mutating func savePlayback(_ playback: Playback, partyId: String) throws {
        try store.save(playback: playback, partyId: partyId)
        if playback.isPlaying {
            let position = playback.positionMs(at: now)
            live[partyId, default: LiveParty()].listening = Listening(heardAt: now, positionMs: position, reportedAt: now)
            live[partyId, default: LiveParty()].stallReason = nil
        } else if playback.isStalled {
            if live[partyId]?.listening == nil {
                live[partyId, default: LiveParty()].listening = Listening(heardAt: now, positionMs: playback.pausedPositionMs, reportedAt: now)
            }
        } else {
            live[partyId, default: LiveParty()].listening = nil
            live[partyId, default: LiveParty()].stallReason = nil
        }
        sharePresence(partyId: partyId)
    }

    /// R20a: the state clients show, with the stall's reason.
    func playbackState(_ playback: Playback, partyId: String) -> (PlaybackState, StallReason?) {
        playback.state(stallReason: stallReason(partyId: partyId, playback: playback))
    }

    /// At start-up: every party whose song should be heard is listened to again. No monitor is connected to a new
    /// process, so a playing song is stalled as `no-monitor` at once, where the clock stood; the TV's first audible
    /// report (it reconnects by itself) continues it from where its audio is.
    mutating func listenToActiveParties() throws {
        for party in try store.activeParties() where party.playback.isPlaying || party.playback.isStalled {
            let duration = try store.queue(partyId: party.id, currentEntryId: party.playback.currentEntryId).current?.track.durationMs
            let position = min(party.playback.positionMs(at: now), duration ?? Int.max)
            live[party.id, default: LiveParty()].listening = Listening(heardAt: now, positionMs: position, reportedAt: now)
            // A stall stored with another reason (the TV refused to play, say) is `no-monitor` now: no TV is connected.
            if party.playback.isStalled, (party.playback.stallReason ?? .noMonitor) == .noMonitor {
                live[party.id, default: LiveParty()].stallReason = .noMonitor
            } else {
                stall(partyId: party.id, reason: .noMonitor)
            }
        }
    }

    /// The TV reports to this instance, which did not start the song (another instance did, or this one before a
    /// restart; one instance alone listens to every playing party at start instead). From now on this instance
    /// listens to it: a stalled song is taken as `no-monitor`, so the TV's audible report resumes it.
    mutating func adoptPlayback(partyId: String) {
        guard let (playback, queue) = try? storedPlayback(partyId: partyId), playback.isPlaying || playback.isStalled else { return }
        let position = min(playback.positionMs(at: now), queue.current?.track.durationMs ?? Int.max)
        live[partyId, default: LiveParty()].listening = Listening(heardAt: now, positionMs: position, reportedAt: now)
        if playback.isStalled { live[partyId, default: LiveParty()].stallReason = .noMonitor }
    }

    /// R20a/R23: the monitor's report. Audible progress un-stalls a stalled song at the reported position;
    /// a refused `play()` or a failed player stalls it at once.
    /// `playback`: the party's as read for the report.
    mutating func hearMonitor(positionMs: Int, paused: Bool, blocked: Bool, error: String?, partyId: String, playback: Playback? = nil) {
        let players = self.players
        if live[partyId]?.listening == nil { players.hearsUnknownSong(partyId: partyId, state: &self) }
        guard var heard = live[partyId]?.listening else { return }
        let reason = players.knownStallReason(partyId: partyId, known: playback, state: self)
        if let error {
            // Said once per stall, though the monitor repeats it with every report (to any instance).
            if reason != .providerError {
                publish(.playbackError(message: error), partyId: partyId)
            }
            stall(partyId: partyId, reason: .providerError, atMs: positionMs)
        } else if blocked {
            stall(partyId: partyId, reason: .autoplayBlocked, atMs: positionMs)
        } else if !paused {
            heard.heardAt = now
            heard.positionMs = positionMs
            heard.reportedAt = now
            live[partyId, default: LiveParty()].listening = heard
            if reason != nil { unstall(partyId: partyId, atMs: positionMs) }
        }
    }

    /// R20a, after a change of the monitors and once a second: the stalls this instance detects (`PlayerPresence`).
    mutating func detectStalls() {
        let players = self.players
        players.detectStalls(state: &self)
    }

    /// The monitor connected again: the stall's "silent" clock starts now, so a TV that loads and plays within
    /// 5 s never shows as silent.
    mutating func monitorArrived(partyId: String) {
        let time = now
        live[partyId]?.listening?.heardAt = time
    }

    /// R20a: freezes the clock where the audio stopped (the last audible report, at most a second on, never
    /// past the server's own clock) and says why; a stalled song only changes its reason.
    /// `heard`: the clock to stop (the cluster's, merged from every instance's records), else this instance's.
    mutating func stall(partyId: String, reason: StallReason, atMs reported: Int? = nil, heard known: Listening? = nil) {
        guard let heard = known ?? live[partyId]?.listening else { return }
        if players.knownStallReason(partyId: partyId, known: nil, state: self) == reason { return }
        guard var (playback, _) = try? storedPlayback(partyId: partyId), playback.isPlaying || playback.isStalled else { return }
        if playback.isPlaying {
            let sinceReport = Int(saturating: now.timeIntervalSince(heard.reportedAt) * 1000)
            let estimate = reported ?? (heard.positionMs + min(max(0, sinceReport), 1000))
            playback.stall(atMs: min(estimate, playback.positionMs(at: now)))
        }
        playback.stallReason = reason
        let stalled = playback
        do {
            try transaction { state in
                try state.savePlayback(stalled, partyId: partyId)
                state.publish(.playbackStalled(reason: reason, positionMs: stalled.pausedPositionMs), partyId: partyId)
            }
        } catch {
            Log.error("stall of \(partyId) not saved: \(error)")
            return
        }
        live[partyId, default: LiveParty()].stallReason = reason
        EngineMetrics.stalled(reason)
    }

    /// R20a: the monitor is heard again; the clock runs on from where the audio is.
    mutating func unstall(partyId: String, atMs positionMs: Int) {
        guard let (stored, queue) = try? storedPlayback(partyId: partyId), stored.isStalled else {
            live[partyId, default: LiveParty()].stallReason = nil
            return
        }
        var playback = stored
        let duration = queue.current?.track.durationMs ?? positionMs
        playback.unstall(atMs: min(max(0, positionMs), max(0, duration)), at: now)
        let playing = playback
        do {
            try transaction { state in
                try state.savePlayback(playing, partyId: partyId)
                state.publishPlayback(partyId: partyId, playing)
            }
        } catch {
            Log.error("unstall of \(partyId) not saved: \(error)")
            return
        }
        live[partyId]?.listening?.positionMs = positionMs
    }
}
