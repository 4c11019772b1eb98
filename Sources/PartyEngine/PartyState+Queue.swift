import Foundation
import PartyCore
import Providers
import ClientNetwork

extension PartyState {
    /// R10–R12, R16, R35: admits tracks the provider resolved (R13), all or none, into the queue, or, where the
    /// party's approval holds this guest's adds, into the songs waiting for the host. Returns whether the party was
    /// idle with a monitor connected, so playback starts by itself, and the ids of the songs now waiting. Without a
    /// device id the songs are nobody's, and R11 counts them per client address. The host's adds never wait.
    mutating func add(_ tracks: [Track], deviceId: String?, clientAddress: String, party: Party, byHost: Bool = false) throws -> AddOutcome {
        let now = self.now
        if let deviceId {
            try refuseIfBanned(deviceId: deviceId, party: party)
            try admitGuest(deviceId, party: party, clientAddress: clientAddress)
        }
        let adder = deviceId ?? QueueEntry.anonymousAdder(network: AddressPrefix.network(of: clientAddress))
        let limited = deviceId ?? "address " + clientAddress
        try guards.limits.checkAdds(tracks.count, device: limited, party: party.id, at: now)
        let outcome = try transaction { state -> AddOutcome in
            let (playback, stored) = try state.storedPlayback(partyId: party.id)
            var queue = stored
            let blacklist = try state.store.blacklist(partyId: party.id)
            // R35, read in the transaction: the host may have changed the setting on another instance.
            var waiting = byHost ? nil : try state.songsAwaitingApproval(from: adder, partyId: party.id)
            var inserted = false
            var held: [Int64] = []
            for track in tracks {
                let admission = queue.admission(for: track, blacklist: blacklist)
                if case .refuse(let error) = admission { throw error }
                if let songs = waiting {
                    let song = try state.hold(track, adder: adder, partyId: party.id, among: songs)
                    waiting = songs + [song]
                    held.append(song.id)
                    continue
                }
                inserted = true
                switch admission {
                case .refuse(let error):
                    throw error
                case .promote(let entryId):
                    try state.store.promote(entryId: entryId, addedBy: adder, at: now)
                    // R10a: the waiting copy may be another version of `track`; it keeps its own.
                    let kept = queue.entries.first { $0.id == entryId }?.track ?? track
                    queue.entries.removeAll { $0.id == entryId }
                    queue.entries.append(QueueEntry(id: entryId, track: kept, addedAt: now, addedBy: adder))
                case .insert:
                    let id = try state.store.insertEntry(partyId: party.id, track: track, addedAt: now, addedBy: adder, autofilled: false)
                    queue.entries.append(QueueEntry(id: id, track: track, addedAt: now, addedBy: adder))
                }
            }
            if let deviceId { try state.recordActivity(deviceId: deviceId, partyId: party.id) }
            if inserted { state.publish(.queueUpdated(.add), partyId: party.id) }
            // R16: an idle party starts by itself, once a monitor can play it (R21).
            return AddOutcome(startsPlayback: inserted && playback.isIdle && state.deviceActive(partyId: party.id),
                              pendingIds: held)
        }
        guards.limits.recordAdds(tracks.count, device: limited, party: party.id, at: now)
        return outcome
    }

    /// R17: toggles this device's like on the entry the uri targets (R10), or sets it to `wanted`. Runs inside its
    /// write's transaction (`PartyService.write`: a savepoint per write in a group commit), which takes back its
    /// writes and effects when it throws.
    mutating func vote(uri: String, deviceId: String, wanted: Bool? = nil, clientAddress: String, party: Party) throws -> (liked: Bool, likeCount: Int) {
        try refuseIfBanned(deviceId: deviceId, party: party)
        try admitLike(device: deviceId, party: party.id)
        let outcome: (liked: Bool, count: Int, entryId: Int64)
        // The queue read here ends with this scope: the cache below then holds its entries alone and changes them in place.
        do {
            assert(openTransactions > 0, "a like runs in its write's transaction")
            let writers = self.writers
            let queue = try writers.queueForLike(of: party, state: &self)
            guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
            try admitGuest(deviceId, party: party, clientAddress: clientAddress)
            let (liked, changed) = try writers.setVote(entryId: entry.id, deviceId: deviceId, wanted: wanted, partyId: party.id, state: &self)
            try recordActivity(deviceId: deviceId, partyId: party.id)
            guard changed else { return (liked, entry.likeCount) }
            let count = entry.likeCount + (liked ? 1 : -1)
            // The event carries what changed, the count and the new order of the waiting entries (R9
            // decided here, once), so pages apply it instead of every page fetching the queue after every like.
            publish(.voteUpdated(uri: uri, likeCount: count, entryId: entry.id, order: queue.waitingIds(likeCount: count, ofEntry: entry.id)),
                    partyId: party.id)
            outcome = (liked, count, entry.id)
        }
        let writers = self.writers
        writers.likeCounted(outcome.count, ofEntry: outcome.entryId, partyId: party.id, state: &self)
        return (outcome.liked, outcome.count)
    }

    /// Host removal of a waiting entry; returns true, removing nothing, when the uri is the playing entry
    /// (the service then advances).
    mutating func remove(uri: String, party: Party) throws -> Bool {
        let queue = try queue(of: party)
        guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
        let playing = entry.id == queue.currentEntryId
        try transaction { state in
            if !playing { try state.store.deleteEntry(id: entry.id) }
            if !entry.autofilled { state.publish(.entryRemoved(entry: entry, reason: .host, wasPlaying: playing), partyId: party.id) }
            if !playing { state.publish(.queueUpdated(.remove), partyId: party.id) }
        }
        return playing
    }

    /// R18b: a guest takes back its own waiting entry (the waiting copy the uri names, R10). Spends a like toggle (a
    /// removal and its undo cost no more than liking); the adder's songs-played count is untouched (R9b).
    mutating func removeOwn(uri: String, deviceId: String, party: Party) throws {
        try refuseIfBanned(deviceId: deviceId, party: party)
        try admitLike(device: deviceId, party: party.id)
        // Read as committed, after the party's row lock on a shared store (another instance may have played it since).
        let (_, queue) = try storedPlayback(partyId: party.id)
        guard let entry = queue.target(uri: uri) else { throw PartyError.notInQueue }
        guard entry.id != queue.currentEntryId, entry.addedBy == deviceId else { throw PartyError.notOwnEntry }
        try transaction { state in
            try state.store.deleteEntry(id: entry.id)
            try state.recordActivity(deviceId: deviceId, partyId: party.id)
            state.publish(.queueUpdated(.remove), partyId: party.id)
        }
    }

    mutating func addBlacklistWord(_ word: String, party: Party) throws {
        let word = Blacklist.normalized(word)
        guard !word.isEmpty, word.count <= 100 else { throw PartyError.invalidInput("Missing word") }
        try store.addBlacklistWord(word, partyId: party.id)
    }

    mutating func removeBlacklistWord(_ word: String, party: Party) throws {
        try store.removeBlacklistWord(Blacklist.normalized(word), partyId: party.id)
    }

    /// Library files are served only to a local party: the audio of a song queued in one, the
    /// covers (search results show them) while one is active.
    func localFileIsServed(trackId: String, audio: Bool) throws -> Bool {
        guard LocalLibrary.isIdentifier(trackId) else { return false }
        return audio ? try store.isQueued(trackId: trackId, provider: "local") : try store.hasActiveParty(provider: "local")
    }
}
