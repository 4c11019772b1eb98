import Foundation
import PartyCore
import Providers

extension PartyService {
    /// R15 source: the default playlist if set (and not empty), else the provider's charts. A provider that fails
    /// is reported as `playback-error`, so a queue that runs dry is never a silent mystery.
    func refillTracks(for party: Party) -> [Track] {
        guard let provider = try? provider(for: party) else { return [] }
        let stored = locked { try? store.party(id: party.id) }
        if let playlistId = stored?.defaultPlaylistId ?? party.defaultPlaylistId,
           let tracks = try? provider.playlistTracks(id: playlistId), !tracks.isEmpty {
            return tracks
        }
        do {
            return try provider.charts()
        } catch {
            let reason = ErrorMapping.httpError(error, context: "refill").message
            hub.publish(ServerEvent(type: .playbackError, partyId: party.id,
                                    payload: [("message", "Kein Nachschub für die Warteschlange: \(reason)")]))
            return []
        }
    }

    /// Adds the refill tracks `Refill.choose` picks, marked `autofilled` (R9 sorts them below guest songs).
    func insertRefill(_ tracks: [Track], into queue: inout Queue, partyId: String) throws {
        let chosen = Refill.choose(from: tracks, queue: queue, blacklist: try store.blacklist(partyId: partyId),
                                   recentlyPlayed: try store.recentlyPlayed(partyId: partyId))
        for track in chosen {
            let id = try store.insertEntry(partyId: partyId, track: track, addedAt: now, addedBy: "autofill", autofilled: true)
            queue.entries.append(QueueEntry(id: id, track: track, addedAt: now, addedBy: "autofill", autofilled: true))
        }
        if !chosen.isEmpty { hub.publish(ServerEvent(type: .queueUpdated, partyId: partyId, payload: [("reason", "refill")])) }
    }

    /// R15 after a start, and `prepare-next`: refills when nothing is waiting.
    func refillIfDry(_ party: Party) throws {
        guard try locked({ try queue(of: party).waiting.isEmpty }) else { return }
        let tracks = refillTracks(for: party)
        try locked {
            var queue = try queue(of: party)
            guard queue.waiting.isEmpty else { return }
            try insertRefill(tracks, into: &queue, partyId: party.id)
        }
    }
}
