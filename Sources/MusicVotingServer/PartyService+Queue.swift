import Foundation
import PartyCore
import Providers

extension PartyService {
    func queue(of party: Party) throws -> Queue {
        try locked {
            readCache.align(to: store.writeVersion)
            if let cached = readCache.queues[party.id] { return cached }
            let current = try cachedParty(id: party.id)?.playback.currentEntryId
            let queue = try store.queue(partyId: party.id, currentEntryId: current)
            readCache.remember(queue: queue, partyId: party.id)
            return queue
        }
    }

    /// R10–R13, R16: adds search results by uri, all or none.
    func add(uris: [String], deviceId: String, clientAddress: String = "local", party: Party) throws {
        guard !uris.isEmpty else { throw PartyError.noTracks }
        let provider = try provider(for: party)
        // R13: only uris the provider resolves; looked up before taking the lock (providers may be remote).
        var tracks: [Track] = []
        for uri in uris {
            guard !uri.isEmpty, uri.utf8.count <= 256, !uri.contains("/") else { throw PartyError.invalidUri }
            guard let track = try provider.track(uri: uri) else { throw PartyError.trackNotFound }
            tracks.append(track)
        }
        let startsPlayback = try locked {
            let now = self.now
            try guestLimits.checkAdds(tracks.count, device: deviceId, address: clientAddress, party: party.id, at: now)
            var (playback, queue) = try storedPlayback(partyId: party.id)
            let blacklist = try store.blacklist(partyId: party.id)
            try store.transaction {
                for track in tracks {
                    switch queue.admission(for: track, blacklist: blacklist) {
                    case .refuse(let error):
                        throw error
                    case .promote(let entryId):
                        try store.promote(entryId: entryId, addedBy: deviceId, at: now)
                        queue.entries.removeAll { $0.id == entryId }
                        queue.entries.append(QueueEntry(id: entryId, track: track, addedAt: now, addedBy: deviceId))
                    case .insert:
                        let id = try store.insertEntry(partyId: party.id, track: track, addedAt: now, addedBy: deviceId, autofilled: false)
                        queue.entries.append(QueueEntry(id: id, track: track, addedAt: now, addedBy: deviceId))
                    }
                }
            }
            guestLimits.recordAdds(tracks.count, device: deviceId, address: clientAddress, party: party.id, at: now)
            hub.publish(ServerEvent(type: .queueUpdated, partyId: party.id, payload: [("reason", "add")]))
            // R16: an idle party starts by itself, once a monitor can play it (R21).
            return playback.isIdle && presence.isActive(partyId: party.id, at: now)
        }
        if startsPlayback { _ = try startAndRefill(party) }
    }

    /// Issue 10: library files are served only to a local party: the audio of a song queued in one, the
    /// covers (search results show them) while one is active. Errors answer "no".
    func localFileIsServed(trackId: String, audio: Bool) -> Bool {
        guard trackId.utf8.count == 16, trackId.utf8.allSatisfy({ ($0 >= 48 && $0 <= 57) || ($0 >= 97 && $0 <= 102) }) else { return false }
        return locked {
            do {
                return audio ? try store.isQueued(trackId: trackId, provider: "local") : try store.hasActiveParty(provider: "local")
            } catch {
                Log.error("local file check: \(error)")
                return false
            }
        }
    }

    /// R18: the entries `deviceId` liked.
    func entriesLiked(by deviceId: String, party: Party) throws -> Set<Int64> {
        try locked {
            readCache.align(to: store.writeVersion)
            let key = party.id + "|" + deviceId
            if let cached = readCache.liked[key] { return cached }
            let entries = try store.entriesLiked(by: deviceId, partyId: party.id)
            readCache.remember(liked: entries, key: key)
            return entries
        }
    }

    /// R17: toggles this device's like on the entry the uri targets (R10).
    func vote(uri: String, deviceId: String, clientAddress: String = "local", party: Party) throws -> (liked: Bool, likeCount: Int) {
        try locked {
            try guestLimits.admitLike(device: deviceId, address: clientAddress, party: party.id, at: now)
            let queue = try queue(of: party)
            guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
            let liked = try store.toggleVote(entryId: entry.id, deviceId: deviceId)
            let count = entry.likeCount + (liked ? 1 : -1)
            hub.publish(ServerEvent(type: .voteUpdated, partyId: party.id, payload: [("uri", uri), ("likeCount", String(count))]))
            return (liked, count)
        }
    }

    /// Host removal; removing the playing entry moves on to the next one.
    func remove(uri: String, party: Party) throws {
        let removesCurrent = try locked {
            let queue = try queue(of: party)
            guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
            if entry.id == queue.currentEntryId { return true }
            try store.deleteEntry(id: entry.id)
            hub.publish(ServerEvent(type: .queueUpdated, partyId: party.id, payload: [("reason", "remove")]))
            return false
        }
        if removesCurrent { _ = try advance(party, force: true) }
    }

    func blacklist(of party: Party) throws -> Blacklist { try locked { try store.blacklist(partyId: party.id) } }

    func addBlacklistWord(_ word: String, party: Party) throws {
        let word = Blacklist.normalized(word)
        guard !word.isEmpty, word.count <= 100 else { throw PartyError.invalidInput("Missing word") }
        try locked { try store.addBlacklistWord(word, partyId: party.id) }
    }

    func removeBlacklistWord(_ word: String, party: Party) throws {
        try locked { try store.removeBlacklistWord(Blacklist.normalized(word), partyId: party.id) }
    }
}
