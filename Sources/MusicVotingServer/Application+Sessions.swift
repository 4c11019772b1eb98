import Foundation
import PartyCluster
import PartyEngine
import PartyStore
import Providers

/// Where the application is put together for one instance alone or several sharing one PostgreSQL database: the
/// store and every concern the instances share, each session to the database opened here and nowhere else.
struct InstanceSessions {
    let store: PartyStore
    let coordination: Coordination
    let loginState: SpotifyLoginState
    /// Several instances: the event channel (stopped before the server), who runs the upkeep and each party's
    /// timers, and whether the database takes writes (`/readyz`). Nil alone: this instance runs everything.
    let doorbell: Doorbell?
    let upkeepLock: UpkeepLock?
    let timerShards: TimerShards?
    let writeProbe: WriteProbe?

    /// `--database postgres://…`: one session for the store and one for each shared concern; else the SQLite file
    /// in the data folder and everything in this process.
    static func open(_ configuration: Configuration, hub: EventHub) throws -> InstanceSessions {
        guard let url = configuration.databaseURL else {
            return InstanceSessions(store: try Application.openSQLite(in: configuration.dataDirectory), coordination: .alone,
                                    loginState: SpotifyLoginState(), doorbell: nil, upkeepLock: nil, timerShards: nil, writeProbe: nil)
        }
        let store = try Application.openPostgreSQL(url)
        let guards = try session(url) { try ClusterGuards(url: $0) }
        let doorbell = try session(url) { try Doorbell(session: try ClusterChannel(url: $0), hub: hub) }
        return InstanceSessions(
            store: store,
            coordination: .shared(guards: guards, presence: try session(url) { try ClusterPresence(url: $0) }, doorbell: doorbell),
            loginState: try session(url) { try SpotifyLoginState(nonces: ClusterLogins(url: $0)) },
            doorbell: doorbell, upkeepLock: try session(url) { try UpkeepLock(url: $0) },
            timerShards: try session(url) { try TimerShards(url: $0) }, writeProbe: try session(url) { try WriteProbe(url: $0) })
    }

    /// Another session of the database `openPostgreSQL` reached; a failure is one sentence at start.
    private static func session<T>(_ url: String, _ open: (String) throws -> T) throws(StartupError) -> T {
        do { return try open(url) } catch {
            let reason = (error as? DatabaseError)?.message ?? String(describing: error)
            throw .postgreSQL(url: URLComponents(string: url).map(StartupError.withoutPassword) ?? url, reason: reason)
        }
    }
}
