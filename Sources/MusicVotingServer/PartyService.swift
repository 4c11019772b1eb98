import Foundation
import PartyCore
import PartyStore
import Providers

/// The party rules applied to the database: each operation loads the party's state, lets PartyCore
/// decide, writes the result and publishes the events.
/// `@unchecked Sendable`: one recursive lock serializes every use of the store (SQLite's single
/// serial owner), the limiters, the presence table and the random source.
final class PartyService: @unchecked Sendable {
    private let lock = NSRecursiveLock()
    let store: PartyStore
    let clock: any PartyClock
    private var random: AnyRandomNumberGenerator
    let providers: ProviderRegistry
    let hub: EventHub
    /// Set once the listening port is known (port 0 picks one).
    private var joinBaseURL = ""
    var presence = Presence()
    /// Reads remembered until the next write to the database (`PartyStore.writeVersion`), so the database
    /// stays the single source of truth: a stale entry cannot be served, because any write changes the version.
    var readCache = ReadCache()
    /// Spotify Web Playback SDK device per party (the monitor's SDK makes a new one on every load).
    var sdkDevices: [String: String] = [:]
    /// R11 and likes, per device and per address in each party.
    var guestLimits = GuestLimits()
    /// R24/R24a: every host PIN and monitor token check, per address and party and per party.
    var secretGuard = SecretGuard()
    /// Party creation: 10 a minute from one address, 60 a minute in all; at most `maxActiveParties` at once.
    var creationsPerAddress = SlidingWindowLimiter(limit: 10)
    var creationsOverall = SlidingWindowLimiter(limit: 60)
    var maxActiveParties = Configuration.Limits().activeParties
    /// Searches and look-ups that reach a remote provider (quota): 15 a minute per address, 40 per party.
    var remoteSearchesPerAddress = SlidingWindowLimiter(limit: 15)
    var remoteSearchesPerParty = SlidingWindowLimiter(limit: 40)
    let remoteCalls = RemoteCallGate()
    /// R27: 30 unknown guest PINs per client address per minute.
    var guestPinFailures = SlidingWindowLimiter(limit: 30)

    init(store: PartyStore, clock: any PartyClock, random: any RandomNumberGenerator, providers: ProviderRegistry,
         hub: EventHub) {
        self.store = store
        self.clock = clock
        self.random = AnyRandomNumberGenerator(base: random)
        self.providers = providers
        self.hub = hub
    }

    func locked<T>(_ body: () throws -> T) rethrows -> T {
        lock.lock()
        defer { lock.unlock() }
        return try body()
    }

    func token() -> String { locked { Identifiers.token(using: &random) } }

    var now: Date { clock.now() }

    /// R3/R5/R6: the active party with this id, else `.partyNotFound`. Ends it first when it is due (R6).
    func activeParty(id: String) throws -> Party {
        try locked {
            guard Identifiers.isWellFormedToken(id), let party = try cachedParty(id: id), party.isActive else {
                throw PartyError.partyNotFound
            }
            if party.isDueToAutoEnd(at: now) {
                try end(party)
                throw PartyError.partyNotFound
            }
            return party
        }
    }

    /// The party's provider, bound to the party (Spotify acts with the party's own login).
    func provider(for party: Party) throws -> any MusicProvider {
        guard let provider = providers.provider(named: party.provider) else { throw ProviderError.notConfigured }
        return provider.bound(to: party.id)
    }

    /// R1/R2/R3: a new party with fresh PINs. Throttled per address and server-wide, and the active parties
    /// are capped well below the PIN space, so a creation flood neither slows the running parties nor
    /// exhausts the PINs (issue 10).
    func createParty(provider name: String?, clientAddress: String = "local") throws -> Party {
        guard let name, !name.isEmpty else { throw PartyError.missingProvider }
        guard providers.provider(named: name) != nil else { throw PartyError.invalidProvider(offered: providers.names) }
        return try locked {
            let now = self.now
            if let retry = creationsPerAddress.retryAfter(key: clientAddress, at: now) ?? creationsOverall.retryAfter(key: "", at: now) {
                throw PartyError.tooManyParties(retryAfterSeconds: retry)
            }
            if try store.activePartyCount() >= maxActiveParties { throw PartyError.tooManyParties(retryAfterSeconds: 60) }
            creationsPerAddress.record(key: clientAddress, at: now)
            creationsOverall.record(key: "", at: now)
            let pins = try PinGenerator.pair(using: &random, isTaken: { (try? store.isPinTaken($0)) ?? true })
            let party = Party(id: Identifiers.token(using: &random), guestPin: pins.guest, hostPin: pins.host,
                              provider: name, createdAt: now)
            try store.insert(party)
            return party
        }
    }

    /// R4: `<public base>/join/<guestPin>`.
    func joinURL(for party: Party) -> String { publicBase + "/join/" + party.guestPin }

    /// The base URL phones and TVs reach this server under.
    var publicBase: String { locked { joinBaseURL } }

    func setJoinBase(_ url: String) { locked { joinBaseURL = url } }

    /// R5: queue emptied, tokens deleted, party ended, `party-ended` sent, streams closed.
    func end(_ party: Party) throws {
        try locked {
            try store.end(partyId: party.id, at: now)
            presence.forget(partyId: party.id)
        }
        hub.publish(ServerEvent(type: .partyEnded, partyId: party.id))
        hub.closeParty(party.id)
    }

    /// R6: ends overdue parties and purges long-ended ones; run periodically.
    func expireParties() throws {
        let overdue = try locked { try store.activeParties().filter { $0.isDueToAutoEnd(at: now) } }
        for party in overdue { try end(party) }
        try locked { _ = try store.purge(endedBefore: now.addingTimeInterval(-Party.purgeAfterEnd)) }
    }

    func setDefaultPlaylist(_ playlistId: String?, party: Party) throws {
        try locked { try store.setDefaultPlaylist(playlistId, partyId: party.id) }
    }
}

/// Lets the injected generator (any type) feed PartyCore's generic functions.
struct AnyRandomNumberGenerator: RandomNumberGenerator {
    var base: any RandomNumberGenerator
    mutating func next() -> UInt64 { base.next() }
}

extension PartyService {
    func providerTokens(of party: Party) throws -> ProviderTokens? {
        try locked { try store.tokens(partyId: party.id) }
    }
}

/// Parties and queues read at one `PartyStore.writeVersion`; emptied when the version moves on.
struct ReadCache {
    static let capacity = 1_000
    private var version: Int64 = -1
    private(set) var parties: [String: Party?] = [:]
    private(set) var queues: [String: Queue] = [:]
    /// R18: the entries each device liked, keyed `party|device`.
    private(set) var liked: [String: Set<Int64>] = [:]

    mutating func align(to version: Int64) {
        guard version != self.version else { return }
        self.version = version
        parties.removeAll(keepingCapacity: true)
        queues.removeAll(keepingCapacity: true)
        liked.removeAll(keepingCapacity: true)
    }

    mutating func remember(liked entries: Set<Int64>, key: String) {
        if liked.count >= Self.capacity { liked.removeAll() }
        liked[key] = entries
    }

    mutating func remember(party: Party?, id: String) {
        if parties.count >= Self.capacity { parties.removeAll() }
        parties[id] = party
    }

    mutating func remember(queue: Queue, partyId: String) {
        if queues.count >= Self.capacity { queues.removeAll() }
        queues[partyId] = queue
    }
}

extension PartyService {
    func cachedParty(id: String) throws -> Party? {
        try locked {
            readCache.align(to: store.writeVersion)
            if let cached = readCache.parties[id] { return cached }
            let party = try store.party(id: id)
            readCache.remember(party: party, id: id)
            return party
        }
    }
}

extension PartyService {
    /// Issue 10: one guest once spent 15,150 YouTube quota units in 13 s. A search or look-up that has to
    /// call the service counts per address and per party; cached answers never do.
    func admitRemoteSearch(party: Party, clientAddress: String) throws {
        try locked {
            let now = self.now
            if let retry = remoteSearchesPerAddress.retryAfter(key: clientAddress, at: now)
                ?? remoteSearchesPerParty.retryAfter(key: party.id, at: now) {
                throw ProviderError.searchRateLimited(retryAfterSeconds: retry)
            }
            remoteSearchesPerAddress.record(key: clientAddress, at: now)
            remoteSearchesPerParty.record(key: party.id, at: now)
        }
    }
}
