import Foundation
import PartyCore

/// What the party engine asks of its store, whatever the database behind it: `PartyStore` on
/// SQLite or PostgreSQL. Not thread-safe: the engine's one `Mutex` is the store's serial owner.
public protocol PartyStoring: AnyObject {
    /// Changes whenever this store wrote anything: what was read at one value is still true at the same value.
    var writeVersion: Int64 { get }
    /// The party's version, moved on by every committed write to it from any process (nil: no such party).
    func partyVersion(id: String) throws -> Int64?
    /// Locks the party's row until the open transaction ends: read-modify-writes of one party from several processes
    /// take turns (nothing to do on SQLite, where a write transaction holds the whole database).
    func lockParty(id: String) throws
    /// Makes what was written durable in one place before shutdown (SQLite's WAL; nothing on PostgreSQL).
    func checkpoint() throws
    /// Runs `body` atomically: all of its writes land, or none.
    func transaction<T>(_ body: () throws -> T) throws -> T

    func insert(_ party: Party) throws
    func party(id: String) throws -> Party?
    /// The parties of `ids` that exist, by id: one statement per `PartyStore.rowsPerStatement` of them.
    func parties(ids: [String]) throws -> [String: Party]
    func activeParty(guestPin: String) throws -> Party?
    func activeParty(hostPin: String) throws -> Party?
    func isPinTaken(_ pin: String) throws -> Bool
    func hasActiveParty(provider: String) throws -> Bool
    func isQueued(trackId: String, provider: String) throws -> Bool
    func activePartyCount() throws -> Int
    func activeParties() throws -> [Party]
    func save(playback: Playback, partyId: String) throws
    func setDefaultPlaylist(_ playlistId: String?, partyId: String) throws
    func save(settings: PartySettings, partyId: String) throws
    func end(partyId: String, at now: Date) throws
    func countWrongPinCheck(partyId: String) throws
    func countHostJoinMissForEveryActiveParty() throws
    @discardableResult func purge(endedBefore cutoff: Date) throws -> Int

    func entries(partyId: String, uri: String?) throws -> [QueueEntry]
    func entriesLiked(by deviceId: String, partyId: String) throws -> Set<Int64>
    func queue(partyId: String, currentEntryId: Int64?) throws -> Queue
    func queue(partyId: String, currentEntryId: Int64?, fair: Bool) throws -> Queue
    /// The party, its row locked until the open transaction ends, in one statement (outside one: `party(id:)`).
    func lockedParty(id: String) throws -> Party?
    /// Whether a statement of the open transaction failed: it can only roll back.
    var transactionFailed: Bool { get }
    func bans(partyId: String) throws -> (adders: Set<String>, addresses: Set<String>)
    @discardableResult
    func insertEntry(partyId: String, track: Track, addedAt: Date, addedBy: String, autofilled: Bool) throws -> Int64
    func promote(entryId: Int64, addedBy: String, at now: Date) throws
    func deleteEntry(id: Int64) throws
    func recordPlayed(uri: String, partyId: String, at now: Date) throws
    func countPlayed(adder: String, partyId: String) throws
    func playedCounts(partyId: String) throws -> [String: Int]
    func recentlyPlayed(partyId: String) throws -> [String]
    func setVote(entryId: Int64, deviceId: String, wanted: Bool?) throws -> (liked: Bool, changed: Bool)

    /// R33 (`PartyStore+History.swift`).
    func recordPlayedSong(_ song: PlayedSong, partyId: String) throws
    func playedSongs(partyId: String) throws -> [PlayedSong]
    func guestCount(partyId: String) throws -> Int

    /// R35 (`PartyStore+Pending.swift`).
    func insertPending(partyId: String, track: Track, requestedAt: Date, adder: String) throws -> Int64
    func pendingSongs(partyId: String, adder: String?) throws -> [PendingSong]
    func pendingSong(id: Int64, partyId: String) throws -> PendingSong?
    func deletePending(id: Int64) throws
    func pendingCount(partyId: String) throws -> Int
    func approveAdder(_ adder: String, partyId: String) throws
    func isApprovedAdder(_ adder: String, partyId: String) throws -> Bool

    /// R36 (`PartyStore+Nicknames.swift`).
    func nicknameHolder(_ nickname: Nickname, partyId: String) throws -> String?
    func setNickname(_ nickname: Nickname?, deviceId: String, partyId: String) throws
    func nicknames(partyId: String) throws -> [String: String]

    /// R17a, R30 (`PartyStore+Crowd.swift`).
    func toggleVeto(entryId: Int64, deviceId: String) throws -> Bool
    func entriesVetoed(by deviceId: String, partyId: String) throws -> Set<Int64>
    func recordActivity(deviceId: String, partyId: String, at now: Date) throws
    /// R17a: several devices' activity (one row per device) in few statements.
    func recordActivity(_ rows: [(deviceId: String, at: Date)], partyId: String) throws
    /// R31: counts `count` under `rule` for `key` in the shared counts inside the open transaction; nil when it fits,
    /// else the seconds until it may (PostgreSQL: the instances' shared `limit_counts`).
    func admit(_ count: Int, _ rule: LimitRule, key: String, at now: Date) throws -> Int?
    /// R11, R17 on PostgreSQL: a group commit's likes of a party read and written in one statement each
    /// (`PartyStore+SharedWrites.swift`).
    func readForLikes(partyId: String, likes: [(deviceId: String, uri: String)], rule: LimitRule, at now: Date) throws -> LikesRead
    func writeLikes(_ likes: LikesWrite, partyId: String, rule: LimitRule) throws -> Bool
    /// Rings the other instances' doorbells with `payload` when the open transaction commits (PostgreSQL's NOTIFY on
    /// `PartyStore.instancesChannel`; delivered on commit, and never if it rolls back).
    func ringInstances(_ payload: String) throws
    func activeGuestCount(partyId: String, since: Date) throws -> Int
    /// Devices active in any party since `since` (the operator's view of R17a's activity).
    func activeGuestCount(since: Date) throws -> Int
    func ban(adder: String, entryId: Int64, partyId: String, address: String?) throws
    func isBanned(address: String, partyId: String) throws -> Bool
    /// Who the party's guests are (`PartyStore+Guests.swift`).
    func isGuest(deviceId: String, partyId: String) throws -> Bool
    @discardableResult
    func admitGuest(deviceId: String, partyId: String, address: String, at now: Date) throws -> Bool
    func guestAddress(deviceId: String, partyId: String) throws -> String?
    @discardableResult func pruneActivity(before cutoff: Date) throws -> Int
    func isBanned(adder: String, partyId: String) throws -> Bool
    func bannedAdders(partyId: String) throws -> Set<String>
    func isBanned(entryId: Int64, partyId: String) throws -> Bool
    @discardableResult func liftBans(partyId: String) throws -> Int

    /// R24a's proven clients, host token, rotation and recovery links (`PartyStore+HostAccess.swift`).
    func isProven(client: String, scope: String) throws -> Bool
    func prove(client: String, scope: String, keep: Int, at now: Date) throws
    func forgetProven(scope: String) throws
    func setHostToken(_ token: String, partyId: String) throws
    func rotateHostPin(to hostPin: String, hostToken: String, partyId: String) throws
    func addHostRecovery(token: String, partyId: String, expiresAt: Date) throws
    func takeHostRecovery(token: String, partyId: String, at now: Date) throws -> Bool

    /// R34's co-host links (`PartyStore+Cohosts.swift`).
    func insertCohost(_ cohost: Cohost, partyId: String) throws
    func cohosts(partyId: String) throws -> [Cohost]
    func cohost(token: String, partyId: String) throws -> Cohost?
    func markCohostJoined(id: String, partyId: String, at now: Date) throws -> Bool
    func revokeCohosts(ids: [String], partyId: String, at now: Date) throws -> [String]
    func pruneRevokedCohosts(partyId: String, keep: Int) throws

    func blacklist(partyId: String) throws -> Blacklist
    func addBlacklistWord(_ word: String, partyId: String) throws
    func removeBlacklistWord(_ word: String, partyId: String) throws
    func monitorToken(partyId: String) throws -> String?
    func setMonitor(token: String, partyId: String) throws
    func save(tokens: ProviderTokens, partyId: String) throws
    func tokens(partyId: String) throws -> ProviderTokens?
    func deleteTokens(partyId: String) throws

    /// The party's event log (`PartyStore+Events.swift`).
    func appendEvents(_ events: [LoggedEvent], partyId: String) throws -> [Int64]
    func lastEventSequence(partyId: String) throws -> Int64?
    func events(partyId: String, after sequence: Int64, limit: Int) throws -> [LoggedEvent]
    @discardableResult func pruneEvents(before cutoff: Date, keepingLast keep: Int, atMost limit: Int) throws -> Int
}


extension PartyStoring {
    /// All of the party's entries.
    public func entries(partyId: String) throws -> [QueueEntry] { try entries(partyId: partyId, uri: nil) }
}
