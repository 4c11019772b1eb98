import Foundation

/// What one instance knows of a party's player: its open monitor streams there, the heartbeats and the
/// audible reports it got. Several instances' records of one party make the view of all of them (`PlayerView`).
public struct PresenceRecord: Sendable, Equatable {
    /// Monitor streams open on the instance (0 once its record is past `streamsUntil`: the instance is gone).
    public var streams: Int
    public var lastHeartbeat: Date?
    public var lastStreamClosed: Date?
    /// The player is a TV with a monitor token, which reports every second.
    public var reports: Bool
    /// R20a's clock: the last audible report (or the song's start) the instance saw, and where the audio was.
    public var heardAt: Date?
    public var positionMs: Int?
    public var reportedAt: Date?
    /// When the instance wrote the record.
    public var updatedAt: Date

    public init(streams: Int, lastHeartbeat: Date?, lastStreamClosed: Date?, reports: Bool, heardAt: Date?, positionMs: Int?,
                reportedAt: Date?, updatedAt: Date) {
        self.streams = streams
        self.lastHeartbeat = lastHeartbeat
        self.lastStreamClosed = lastStreamClosed
        self.reports = reports
        self.heardAt = heardAt
        self.positionMs = positionMs
        self.reportedAt = reportedAt
        self.updatedAt = updatedAt
    }
}

/// Every instance's record of each party's player, in the database several instances share: what one instance
/// saves, the one that owns the party's timers (`timerShards`) reads. A failure is the caller's to log.
public protocol PresenceRecords: Sendable {
    /// The number of timer shards parties fall into (each instance owns some).
    var shardCount: Int { get }
    /// Writes this instance's records of the parties' players, by party (the once-a-second refresh of every party
    /// with streams here is one call).
    func save(_ records: [String: PresenceRecord]) throws
    func records(partyId: String, at now: Date) throws -> [PresenceRecord]
    /// The records of every active party in `shards`, by party.
    func records(shards: [Int], at now: Date) throws -> [String: [PresenceRecord]]
    /// The active parties in `shards` whose song should be heard (playing, or stalled but not paused by the host).
    func partiesToWatch(shards: [Int]) throws -> [String]
    func forget(partyId: String) throws
    /// Drops records nobody wrote since `cutoff` whose streams no longer count.
    func prune(before cutoff: Date, at now: Date) throws
    func sdkDevice(partyId: String) throws -> String?
    func setSDKDevice(_ deviceId: String, partyId: String) throws
    func webPlayerAddress(partyId: String) throws -> String?
    func webPlayerAddresses() throws -> [String: String]
    func setWebPlayerAddress(_ address: String?, partyId: String) throws
    /// Records `active` as the party's announced `deviceActive`: true when it changed, so exactly one instance
    /// announces each change.
    func announce(active: Bool, partyId: String) throws -> Bool
    func retiredMonitorTokens(partyId: String) throws -> [String]
    func setRetiredMonitorTokens(_ tokens: [String], partyId: String) throws
}
