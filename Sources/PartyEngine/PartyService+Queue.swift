import Foundation
import PartyCore
import PartyStore
import Providers
import Synchronization
import ClientNetwork

extension PartyService {
    public func queue(of party: Party) throws -> Queue { try withState { try $0.queue(of: party) } }

    /// The queue as `render` turns it into bytes for `deviceId` (R18's `hasVoted`), rendered once per write
    /// version: reads serve the bytes, and the rendering itself runs outside the lock. `render` also gets the
    /// current song's position now (R18a's `startsInMs`); while a song plays the times move, so a rendering is
    /// kept for the second it was made in. The order (R9/R9b) is decided once per write version for every device.
    public func renderedQueue(of party: Party, deviceId: String?, render: (QueueRendering) -> [UInt8]) throws -> [UInt8] {
        let (cached, rendering, key, version) = try withState { state in
            let (queue, ordered) = try state.orderedQueue(of: party)
            let playback = try state.playback(of: party)
            let moving = state.playbackState(playback, partyId: party.id).0 == .playing
            let now = state.now
            // R17a: the threshold moves as guests come and go, without a write: it is part of what a rendering answers.
            let active = try state.activeGuests(party: party)
            let second: String = moving ? "|\(Int(now.timeIntervalSince1970))" : ""
            let vetoKey: String = active.map { "|veto\($0)" } ?? ""
            let key = "\(party.id)|\(deviceId ?? "")\(second)\(vetoKey)"
            // R18b: a rendering is kept only while the device's budget is full: it stays full until the device adds
            // (a write, which empties the cache), while a spent one comes back as the clock runs.
            let cached = state.readCache.renderings[key]
            let budget = cached == nil ? deviceId.map { state.guards.limits.addBudget(device: $0, party: party.id, at: now) } : nil
            let liked = cached == nil ? try deviceId.map { try state.entriesLiked(by: $0, party: party) } : nil
            let veto = try active.map { active in
                VetoView(share: party.settings.vetoShare, activeGuests: active,
                         vetoed: cached == nil ? try deviceId.map { try state.entriesVetoed(by: $0, party: party) } : nil)
            }
            let pending = cached == nil ? try deviceId.map { try state.store.pendingSongs(partyId: party.id, adder: $0) } : nil
            let rendering = QueueRendering(queue: queue, ordered: ordered, liked: liked, currentPositionMs: playback.positionMs(at: now),
                                           veto: veto, budget: budget, pending: pending,
                                           nicknames: cached == nil && party.settings.nicknames ? try state.store.nicknames(partyId: party.id) : nil)
            let version = (state.readCache.alignedVersion, state.readCache.partyVersions[party.id])
            return (cached, rendering, key, version)
        }
        if let cached { return cached }
        let bytes = render(rendering)
        if let budget = rendering.budget, !budget.isFull { return bytes }
        withState { state in
            // Kept only for the reads it was made from: no write here since, nor (shared store) a newer party version.
            if state.store.writeVersion == version.0, state.readCache.alignedVersion == version.0,
               state.readCache.partyVersions[party.id] == version.1 {
                state.readCache.remember(rendering: bytes, key: key)
            }
        }
        return bytes
    }

    /// R10–R13, R16: adds search results by uri, all or none. A remote provider is asked only for uris it did not
    /// answer recently, and those look-ups are admitted like searches before the first call. Without a device id
    /// (the original web frontend) the songs are nobody's (`QueueEntry.isAnonymous`).
    /// R35: returns the ids of the songs that wait for the host's approval (empty: they entered the queue); `byHost`:
    /// the host's own adds never wait.
    @discardableResult
    public func add(uris: [String], deviceId: String?, clientAddress: String = "local", party: Party, byHost: Bool = false) throws -> [Int64] {
        guard !uris.isEmpty else { throw PartyError.noTracks }
        guard uris.count <= Self.maxUrisPerAdd else { throw PartyError.tooManyUris(limit: Self.maxUrisPerAdd) }
        // R30: a banned guest costs no provider look-up.
        if let deviceId { try withState { try $0.refuseIfBanned(deviceId: deviceId, party: party) } }
        for uri in uris where uri.isEmpty || uri.utf8.count > 256 || uri.contains("/") { throw PartyError.invalidUri }
        let provider = try provider(for: party)
        // R13: only uris the provider resolves; looked up before taking the lock (providers may be remote).
        var known: [String: Track?] = [:]
        if provider.isRemote {
            for uri in uris { if let answer = trackLookups.answer(provider: provider.name, uri: uri, at: now) { known[uri] = answer } }
            let unknown = Set(uris).subtracting(known.keys).count
            if unknown > 0 { try admitRemoteSearch(party: party, clientAddress: clientAddress, count: unknown) }
        }
        var tracks: [Track] = []
        for uri in uris {
            let track: Track?
            if let answer = known[uri] {
                track = answer
            } else {
                track = try provider.track(uri: uri)
                if provider.isRemote { trackLookups.remember(track, provider: provider.name, uri: uri, at: now) }
                known[uri] = track
            }
            guard let track else { throw PartyError.trackNotFound }
            tracks.append(track)
        }
        let outcome = try write(partyId: party.id) { [tracks] in
            try $0.add(tracks, deviceId: deviceId, clientAddress: clientAddress, party: party, byHost: byHost)
        }
        EngineMetrics.adds.add(tracks.count)
        if outcome.startsPlayback { _ = try startAndRefill(party) }
        return outcome.pendingIds
    }

    public func vote(uri: String, deviceId: String, wanted: Bool? = nil, clientAddress: String = "local", party: Party) throws -> (liked: Bool, likeCount: Int) {
        let result = try write(partyId: party.id, withoutSavepoint: true, like: (deviceId, uri)) { try $0.vote(uri: uri, deviceId: deviceId, wanted: wanted, clientAddress: clientAddress, party: party) }
        if result.liked { EngineMetrics.likes.add() }
        return result
    }

    /// R17 without holding the caller's thread (it returns at once): `completion` gets the answer once the like's
    /// group commit is done. The party is looked up in the batch (a like storm's request threads waited for the
    /// state lock a committing batch held, only to find the party), and the like counted there (R11, R31).
    public func vote(uri: String, deviceId: String, wanted: Bool? = nil, clientAddress: String, partyId: String,
                     completion answer: @escaping @Sendable (Result<(liked: Bool, likeCount: Int), any Error>) -> Void) {
        let completion: @Sendable (Result<(liked: Bool, likeCount: Int), any Error>) -> Void = { result in
            if case .success(let vote) = result, vote.liked { EngineMetrics.likes.add() }
            answer(result)
        }
        write(partyId: partyId, withoutSavepoint: true, like: (deviceId, uri), { state in
            try state.vote(uri: uri, deviceId: deviceId, wanted: wanted, clientAddress: clientAddress,
                           party: state.partyToWrite(id: partyId))
        }, completion: completion)
    }

    /// Host removal; removing the playing entry moves on to the next one.
    public func remove(uri: String, party: Party) throws {
        if try withState({ try $0.remove(uri: uri, party: party) }) { _ = try advance(party, request: .host) }
    }

    /// R18b: a guest's removal of its own waiting song.
    public func removeOwn(uri: String, deviceId: String, party: Party) throws {
        try write(partyId: party.id) { try $0.removeOwn(uri: uri, deviceId: deviceId, party: party) }
    }

    public func blacklist(of party: Party) throws -> Blacklist { try withState { try $0.store.blacklist(partyId: party.id) } }

    public func addBlacklistWord(_ word: String, party: Party) throws { try withState { try $0.addBlacklistWord(word, party: party) } }

    public func removeBlacklistWord(_ word: String, party: Party) throws { try withState { try $0.removeBlacklistWord(word, party: party) } }

    public func localFileIsServed(trackId: String, audio: Bool) -> Bool {
        do { return try withState { try $0.localFileIsServed(trackId: trackId, audio: audio) } } catch {
            Log.error("local file check: \(error)")
            return false
        }
    }
}
