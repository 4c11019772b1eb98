import Foundation
import PartyCore
import PartyStore
import Providers
import Synchronization
import ClientNetwork

/// The party rules applied to the database: one `Mutex<PartyState>` owns all mutable state; every operation
/// runs under it once (no recursion), and the events it caused are published after the lock is released,
/// so fan-out to thousands of streams never holds up the SQL of every other party. Provider calls (which can
/// take seconds) happen outside the lock too.
public final class PartyService: Sendable {
    private let state: Mutex<PartyState>
    public let clock: any PartyClock
    public let providers: ProviderRegistry
    public let hub: EventHub
    public let remoteCalls = RemoteCallGate()
    public let trackLookups = TrackLookups()
    /// One add names at most this many uris (each may cost an upstream call); R11
    /// lets a device add no more in a minute anyway.
    public static let maxUrisPerAdd = GuestLimits.addsPerDevice
    /// Set once the listening port is known (port 0 picks one).
    private let joinBase = Mutex("")
    static let remoteControl = DispatchQueue(label: "musicvoting.remote-playback")
    /// Events reach the hub in commit order, though after the state lock (`PublishOrder`).
    private let publishOrder = PublishOrder()
    /// Set by `beginDrain`.
    let draining = Atomic(false)
    /// Likes and adds commit in groups (`write`).
    let commits = GroupCommit<BatchedWrite>()

    /// Rung after each commit that logged events (other instances hear of them).
    private let channel: any EventChannel
    /// Several instances: whether this instance runs the upkeep (`runsUpkeep`) and the timer shards it owns.
    let upkeepOwner = Mutex<Bool?>(nil)
    let ownedShards = Mutex<[Int]?>(nil)

    public init(store: sending any PartyStoring, clock: any PartyClock, random: sending any RandomNumberGenerator, providers: ProviderRegistry,
         hub: EventHub, coordination: Coordination = .alone) {
        channel = coordination.channel
        self.clock = clock
        self.providers = providers
        self.hub = hub
        state = Mutex(PartyState(store: store, clock: clock, random: random, coordination: coordination,
                                 playerStreams: { [hub] partyId, address in hub.playerStreamCount(partyId: partyId, address: address) }))
        hub.whenStreamsChange { [weak self] partyId, address, isMonitor in
            guard let self, !self.draining.load(ordering: .relaxed) else { return }
            self.withState { state in
                guard isMonitor || state.isWebPlayer(partyId: partyId, address: address) else { return }
                state.monitorStreamsChanged(partyId: partyId)
            }
        }
    }

    /// The type of the random source PINs, party ids and tokens are drawn from, by its full name: R2 wants a
    /// cryptographic one, and a test holds the app to injecting it.
    public var randomSourceType: String { withState { String(reflecting: type(of: $0.random.base)) } }

    /// Runs `body` under the lock, then performs the effects it recorded (also when it threw: what it
    /// recorded outside a rolled-back transaction did happen, a counted wrong PIN for one).
    @discardableResult
    func withState<T: Sendable>(_ body: (inout sending PartyState) throws -> sending T) rethrows -> T {
        var effects = PartyState.Effects()
        var ticket: UInt64?
        defer { perform(effects, ticket: ticket) }
        return try state.withLock { state in
            state.readCache.beginHold()
            defer {
                effects = state.takeEffects()
                if !effects.events.isEmpty { ticket = publishOrder.ticket() }
            }
            return try body(&state)
        }
    }

    private func perform(_ effects: PartyState.Effects, ticket: UInt64?) {
        if let ticket {
            publishOrder.inTurn(ticket) { for event in effects.events { hub.publish(event) } }
            for event in effects.events {
                if let sequence = event.sequence {
                    if !event.rungAtCommit { channel.ring(partyId: event.partyId, sequence: sequence) }
                } else if !event.kind.isLogged, !channel.logs(event.kind) {
                    channel.relay(partyId: event.partyId, message: event.message)
                }
            }
        }
        for partyId in effects.closedMonitorStreams { hub.closeMonitorStreams(partyId: partyId) }
        for partyId in Set(effects.playersToDrive) { driveRemotePlayer(partyId: partyId) }
    }

    public var now: Date { clock.now() }

    // MARK: Parties and access

    public func activeParty(id: String) throws -> Party { try withState { try $0.activeParty(id: id) } }

    /// R24/R29: the active party (404) whose host PIN — or, with `allowMonitor`, the monitor's token (R21's
    /// "M") — the credential carries (401, then the throttle, then 403).
    /// R34: with `allowCohost`, a live co-host link too (`.cohost`); without, a co-host is refused (403).
    @discardableResult
    public func authorize(_ credential: Credential, partyId: String, allowMonitor: Bool = false, allowCohost: Bool = false) throws -> (Party, Caller) {
        try withState { try $0.authorize(credential, partyId: partyId, allowMonitor: allowMonitor, allowCohost: allowCohost) }
    }

    public func checkSecret(_ token: String, party: Party, clientAddress: String, allowMonitor: Bool) throws -> Caller? {
        try withState { try $0.checkSecret(token, party: party, clientAddress: clientAddress, allowMonitor: allowMonitor) }
    }

    /// R24a: a new host PIN and host token for the party (the host's own request).
    public func rotateHostPin(of party: Party, clientAddress: String) throws -> Party {
        try withState { try $0.rotateHostPin(of: party, clientAddress: clientAddress) }
    }

    /// R24a: a one-time link of the server's console, redeemed for a new host PIN and host token.
    public func redeemHostRecovery(token: String, partyId: String, clientAddress: String) throws -> Party {
        try withState { try $0.redeemHostRecovery(token: token, partyId: partyId, clientAddress: clientAddress) }
    }

    public func joinParty(guestPin: String, clientAddress: String, deviceId: String? = nil) throws -> Party {
        try withState { try $0.joinParty(guestPin: guestPin, clientAddress: clientAddress, deviceId: deviceId) }
    }

    public func hostJoin(hostPin: String, clientAddress: String) throws -> Party {
        try withState { try $0.hostJoin(hostPin: hostPin, clientAddress: clientAddress) }
    }

    public func createParty(provider name: String?, settings: PartySettings = .apiDefault, clientAddress: String = "local") throws -> Party {
        guard let name, !name.isEmpty else { throw PartyError.missingProvider }
        guard providers.provider(named: name) != nil else { throw PartyError.invalidProvider(offered: providers.names) }
        return try withState { try $0.createParty(provider: name, settings: settings, clientAddress: clientAddress) }
    }

    /// R9b, R17a: the host changes the party's settings; a change reaches every page as `queue-updated` (reason `settings`).
    public func updateSettings(_ settings: PartySettings, party: Party) throws {
        try withState { state in
            try state.transaction { state in
                try state.store.save(settings: settings, partyId: party.id)
                // The order (R9b) or the veto's buttons and threshold (R17a) change on every page.
                if settings != party.settings { state.publish(.queueUpdated(.settings), partyId: party.id) }
            }
        }
    }

    public var maxActiveParties: Int {
        get { withState { $0.guards.maxActiveParties } }
        set { withState { $0.guards.maxActiveParties = newValue } }
    }

    /// The ration of new guests per network and minute (`GuestLimits`); 0: none.
    public func setNewGuestsPerNetwork(_ limit: Int) {
        withState { $0.guards.limits.setNewGuestsPerNetwork(limit) }
    }

    /// The party's provider, bound to the party (Spotify acts with the party's own login).
    public func provider(for party: Party) throws -> any MusicProvider {
        guard let provider = providers.provider(named: party.provider) else { throw ProviderError.notConfigured }
        return provider.bound(to: party.id)
    }

    /// R4: `<public base>/join/<guestPin>`.
    public func joinURL(for party: Party) -> String { publicBase + "/join/" + party.guestPin }

    /// The base URL phones and TVs reach this server under.
    public var publicBase: String { joinBase.withLock { $0 } }

    public func setJoinBase(_ url: String) { joinBase.withLock { $0 = url } }

    public func end(_ party: Party) throws { try withState { try $0.end(party) } }

    /// R6: ends overdue parties and purges long-ended ones; run periodically.
    public func expireParties() throws {
        try withState { try $0.expireParties() }
        try pruneEventLog()
    }

    /// The event logs pruned to what they keep (`EventLog`), `step` rows at a time, each step under the lock on its
    /// own: however large the log has grown, no step holds the state or a statement long. At most `steps` steps
    /// (the next upkeep goes on).
    @discardableResult
    public func pruneEventLog(step: Int = 2_000, steps: Int = 500) throws -> Int {
        let cutoff = now.addingTimeInterval(-EventLog.keptFor)
        var pruned = 0
        for _ in 0..<steps {
            let deleted = try withState { try $0.store.pruneEvents(before: cutoff, keepingLast: EventLog.keptEvents, atMost: step) }
            pruned += deleted
            if deleted < step { break }
        }
        return pruned
    }

    public func setDefaultPlaylist(_ playlistId: String?, party: Party) throws {
        try withState { try $0.store.setDefaultPlaylist(playlistId, partyId: party.id) }
    }

    public func providerTokens(of party: Party) throws -> ProviderTokens? { try withState { try $0.store.tokens(partyId: party.id) } }

    public func admitRemoteSearch(party: Party, clientAddress: String, count: Int = 1) throws {
        try withState { try $0.admitRemoteSearch(party: party, clientAddress: clientAddress, count: count) }
    }

    public func admitProviderLogin(party: Party, clientAddress: String, byHost: Bool = false) throws {
        try withState { try $0.admitProviderLogin(party: party, clientAddress: clientAddress, byHost: byHost) }
    }

    /// Folds the write-ahead log into the database file (shutdown).
    public func checkpoint() throws { try withState { try $0.store.checkpoint() } }
}
