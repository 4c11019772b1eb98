import EmbeddedResources
import Foundation
import HTTPServer
import Metrics
import PartyCore
import PartyEngine
import PartyCluster
import PartyStore
import Providers

/// The whole server: store, rules, routes, event hub and the periodic upkeep, on one HTTP server.
public final class Application: @unchecked Sendable {
    public let configuration: Configuration
    package let service: PartyService
    private let hub: EventHub
    private let server: Server
    /// Every request the server reads goes through it; it answers without a socket too (`respond(to:)`).
    let pipeline: RequestPipeline
    /// Derived from the open-file limit, raised to its hard limit at start.
    let connectionLimit: Int
    private let upkeep = DispatchQueue(label: "musicvoting.upkeep")
    private let doorbell: Doorbell?
    /// With a shared database, the upkeep runs on the one instance holding this lock. Used on `upkeep` only.
    private let upkeepLock: UpkeepLock?
    // Guarded by `upkeep`: whether this instance held the upkeep lock at the last tick.
    private var ranUpkeep = false
    /// With a shared database, which parties' timers this instance runs. Used on `upkeep` only.
    private let timerShards: TimerShards?
    private var timer: DispatchSourceTimer?
    /// What `/metrics` shows; `metricsServer` serves it on `--metrics ADDRESS:PORT`.
    let metrics: MetricsRegistry
    private let metricsServer: Server?
    /// Active parties and recently active guests, read by the upkeep every `countInterval` ticks, shown by `/metrics`.
    private let operationalCounts = OperationalCounts()
    /// `/readyz`: start-up done, not draining, the database takes writes.
    let readiness: Readiness
    /// Held while the server runs on a SQLite data folder: `musicvoting restore` refuses while it is held.
    private let dataFolderLock: DataFolderLock?
    // Guarded by `upkeep`: ticks since start (one a second), for the 60 s expiry.
    private var ticks = 0

    public init(configuration: Configuration, clock: any PartyClock = SystemClock(),
                random: sending any RandomNumberGenerator = SystemRandomNumberGenerator()) throws {
        self.configuration = configuration
        // The database holds PINs and provider tokens: what this server creates is for its own user only.
        umask(0o077)
        if let library = configuration.libraryDirectory { try StartupError.checkMusicFolder(library) }
        if configuration.databaseURL == nil {
            try StartupError.checkDataFolder(configuration.dataDirectory)
            guard let lock = try DataFolderLock(folder: configuration.dataDirectory, mode: .server) else {
                throw StartupError.restoreRunning(path: configuration.dataDirectory)
            }
            dataFolderLock = lock
        } else {
            dataFolderLock = nil
        }
        connectionLimit = OpenFileLimit.connectionLimit(openFiles: OpenFileLimit.raiseToHardLimit())
        let limits = configuration.limits
        // Streams may take three quarters of the connections: the rest stays free for pages and API calls.
        hub = EventHub(clock: clock, limits: EventHub.Limits(perAddress: limits.streamsPerAddress, perParty: limits.streamsPerParty,
                                                             total: connectionLimit * 3 / 4))
        let library = configuration.libraryDirectory.map { LocalLibrary(root: URL(fileURLWithPath: $0)) }
        let vault = StoreTokenVault()
        let sessions = try InstanceSessions.open(configuration, hub: hub)
        let spotify = configuration.spotifyClientId.map { clientId in
            SpotifyProvider(client: SpotifyClient(configuration: SpotifyConfiguration(
                clientId: clientId, clientSecret: configuration.spotifyClientSecret,
                redirectURI: configuration.spotifyRedirectURI ?? "",
                accountsBase: configuration.spotifyAccountsBase.flatMap(URL.init(string:)) ?? SpotifyConfiguration.defaultAccountsBase,
                apiBase: configuration.spotifyAPIBase.flatMap(URL.init(string:)) ?? SpotifyConfiguration.defaultAPIBase),
                vault: vault), loginState: sessions.loginState)
        }
        let providers = ProviderRegistry(all: [
            DemoProvider(),
            library.map { LocalProvider(library: $0) } ?? UnconfiguredProvider(name: "local"),
            spotify ?? UnconfiguredProvider(name: "spotify"),
            configuration.youtubeKey.map { key in
                YouTubeProvider(apiKey: key, base: configuration.youtubeBase.flatMap(URL.init(string:)) ?? YouTubeProvider.defaultBase)
            } ?? UnconfiguredProvider(name: "youtube"),
        ])
        upkeepLock = sessions.upkeepLock
        timerShards = sessions.timerShards
        doorbell = sessions.doorbell
        service = PartyService(store: sessions.store, clock: clock, random: random, providers: providers, hub: hub,
                               coordination: sessions.coordination)
        vault.service = service
        service.maxActiveParties = configuration.limits.activeParties
        service.setNewGuestsPerNetwork(configuration.limits.newGuestsPerNetwork)
        if upkeepLock != nil { service.runsUpkeep = false }
        // The pages and assets inside the binary, or (development) those of `--resources DIR` as they are now.
        let resources = configuration.resourcesDirectory.map { URL(fileURLWithPath: $0) }
        let publicFiles = resources.map { StaticFiles(directory: $0.appendingPathComponent("Public")) } ?? EmbeddedResources.publicFiles()
        let templateFiles = resources.map { FolderFiles.read($0.appendingPathComponent("Templates")) } ?? EmbeddedResources.templates()
        readiness = Readiness(probe: sessions.writeProbe.map { probe -> @Sendable () -> Bool in { probe.canWrite() } })
        let router = Routes(service: service, readiness: readiness, publicFiles: publicFiles, library: library,
                            pages: try PageRenderer(files: templateFiles, assetBase: "/assets/v-" + publicFiles.version,
                                                            publicBase: { [service] in service.publicBase })).router()
        let allowedHosts = AllowedHosts(names: configuration.allowedHosts + Self.ownHostNames(publicURL: configuration.publicURL))
        let requestMetrics = RequestMetrics(patterns: router.patterns)
        let server = Server(respond: { _ in Response(error: .notFound) })
        let metrics = Self.registry(requests: requestMetrics, server: server, hub: hub, counts: operationalCounts)
        self.metrics = metrics
        let exposition: @Sendable () -> String = { metrics.exposition() }
        let pipeline = RequestPipeline(router: router, trustedProxies: configuration.trustedProxies, allowedHosts: allowedHosts,
                                       metrics: requestMetrics, exposition: configuration.metricsListener == nil ? exposition : nil)
        self.pipeline = pipeline
        server.respond = pipeline.respond
        self.server = server
        metricsServer = configuration.metricsListener.map { _ in
            Server(respond: { request in
                request.path == RequestPipeline.metricsRoute ? .text(exposition(), contentType: MetricsRegistry.contentType) : Response(error: .notFound)
            })
        }
    }

    /// Every metric `/metrics` shows, in order: requests, connections and streams, the party service, the stores,
    /// providers, the process.
    private static func registry(requests: RequestMetrics, server: Server, hub: EventHub, counts: OperationalCounts) -> MetricsRegistry {
        let gauges: [any MetricFamily] = [
            Gauge("musicvoting_http_connections", help: "HTTP connections open now, event streams included.") { Double(server.openConnections) },
            Gauge("musicvoting_event_streams", help: "Event streams open now.") { Double(hub.streamCount()) },
            Gauge("musicvoting_event_stream_slowest_backlog_bytes",
                  help: "Bytes the slowest event stream has queued and not yet written (a stream is dropped at 64 KiB).") {
                Double(hub.slowestBacklog())
            },
            Gauge("musicvoting_parties_active", help: "Parties not ended (read every 10 s).") { Double(counts.read().activeParties) },
            Gauge("musicvoting_guests_active", help: "Devices that joined, added, liked or vetoed in the last 10 minutes (read every 10 s).") {
                Double(counts.read().activeGuests)
            },
            Gauge("musicvoting_parties_with_tv", help: "Parties whose TV (registered monitor) holds an event stream to this instance.") {
                Double(hub.partiesWithMonitor())
            },
        ]
        return MetricsRegistry(requests.families + [server.acceptedConnections, HTTPMetrics.refusedConnections, HTTPMetrics.eventStreamBytes] + gauges
                               + EngineMetrics.families + StoreMetrics.families + ProviderMetrics.families + ProcessMetrics.families)
    }

    /// Starts listening; returns the bound port.
    @discardableResult
    public func start() throws -> UInt16 {
        // Behind a trusted proxy every connection comes from the proxy: the per-address and per-prefix limits
        // would refuse guests.
        let direct = configuration.trustedProxies.isEmpty
        var http = Server.Configuration(host: configuration.host, port: configuration.port, threads: configuration.threads,
                                        connectionLimit: connectionLimit,
                                        perAddressConnectionLimit: direct ? configuration.limits.connectionsPerAddress : 0,
                                        perPrefixConnectionLimit: direct ? configuration.connectionsPerPrefix : 0)
        http.inheritedSocket = configuration.inheritedSocket
        if let certificate = configuration.tlsCertificatePath, let key = configuration.tlsKeyPath {
            http.tlsCertificatePEM = try StartupError.readTLSFile(certificate, option: "--tls-cert")
            http.tlsKeyPEM = try StartupError.readTLSFile(key, option: "--tls-key")
        }
        do { try server.start(http) } catch { throw StartupError.listen(error) }
        if let metricsServer, let listener = configuration.metricsListener {
            // The operator's own listener: no per-address limits, a few connections.
            let scrape = Server.Configuration(host: listener.host, port: listener.port, threads: 1, connectionLimit: 64,
                                              perAddressConnectionLimit: 0, perPrefixConnectionLimit: 0)
            do { try metricsServer.start(scrape) } catch { throw StartupError.listen(error) }
        }
        readOperationalCounts()
        service.setJoinBase(configuration.publicURL ?? defaultPublicURL(port: server.port))
        if upkeepLock == nil {
            do {
                try service.expireParties()
                try service.repairDanglingPlayback()
            } catch {
                Log.error("start-up upkeep: \(error)")
            }
        }
        let timer = DispatchSource.makeTimerSource(queue: upkeep)
        timer.schedule(deadline: .now() + 1, repeating: 1)
        timer.setEventHandler { [weak self] in self?.tick() }
        timer.resume()
        self.timer = timer
        readiness.started()
        return server.port
    }

    public var port: UInt16 { server.port }

    /// The port of `--metrics ADDRESS:PORT` (the one picked, for port 0); nil without it.
    public var metricsPort: UInt16? { metricsServer?.port }

    private func readOperationalCounts() {
        do { operationalCounts.store(try service.operationalCounts()) } catch { Log.error("counts for /metrics: \(error)") }
    }

    public var scheme: String { configuration.tlsCertificatePath == nil ? "http" : "https" }

    /// What a stream is told on drain: come back after 1 to 6 s, drawn for each (`EventHub.drain`).
    static let comeBackAfterMilliseconds = 1_000...6_000

    /// SIGTERM: `/readyz` turns 503, new connections are refused, every event stream is told to come back later and
    /// ends, requests already read (a like waiting for its group commit among them) are answered; then `stop`. Waits
    /// at most `seconds` in all: what is still running then is cut off.
    ///
    /// Behind a proxy, connections the proxy keeps open are served on (each answer closes its connection) until
    /// they are all closed or the proxy's idle timeout has surely passed. Closing one of them ourselves could cross
    /// a like the proxy sends on it at that moment: the like would fail, and nginx does not send a POST again. Once
    /// nginx's keepalive_timeout (`Server.proxyIdleTimeout`) has passed since the drain began, every connection it
    /// kept idle it has closed itself, and every one it used since was answered with `Connection: close`, so nothing
    /// is left on which it could still send a request.
    public func drain(within seconds: TimeInterval) {
        let start = DispatchTime.now().uptimeNanoseconds
        let deadline = start + UInt64(max(0, seconds) * 1e9)
        func remaining() -> TimeInterval { Double(Int64(bitPattern: deadline &- DispatchTime.now().uptimeNanoseconds)) / 1e9 }
        readiness.drain()
        server.stopAccepting()
        service.beginDrain()
        hub.drain(retry: Self.comeBackAfterMilliseconds)
        // A second over the proxy's timeout: its clock starts when it has read an answer, a little after ours.
        let keptUntil = start + UInt64(Server.proxyIdleTimeout + 1) * 1_000_000_000
        let behindProxy = !configuration.trustedProxies.isEmpty
        func keptByProxy() -> Bool { behindProxy && server.openConnections > 0 && DispatchTime.now().uptimeNanoseconds < keptUntil }
        // The last half second (at most a quarter of the time) is for `stop` itself.
        let margin = min(0.5, seconds / 4)
        while server.requestsInProgress > 0 || keptByProxy(), remaining() > margin { Thread.sleep(forTimeInterval: 0.01) }
        stop(patience: max(0, remaining() - margin))
    }

    /// One request through the pipeline the HTTP server uses, without a socket: the tests' in-process server.
    package func respond(to request: Request) -> Response { pipeline.respond(to: request) }

    /// Ends the threads that hold database sessions of their own (the doorbell's), so an application that never
    /// listened gives every session back when it goes; `stop` does this too.
    package func closeSessions() {
        doorbell?.stop()
    }

    /// Closes every event stream, then the HTTP server (NOTES: resume suspended streams before stopping).
    public func stop(patience: TimeInterval = 12) {
        timer?.cancel()
        timer = nil
        doorbell?.stop()
        hub.closeAll()
        Thread.sleep(forTimeInterval: min(0.2, patience))
        server.stop(patience: patience)
        metricsServer?.stop()
        do { try service.flushActivityNow() } catch { Log.error("guest activity on shutdown: \(error)") }
        do { try service.checkpoint() } catch { Log.error("checkpoint on shutdown: \(error)") }
        Log.flush()
    }

    private func tick() {
        ticks += 1
        let runsUpkeep = upkeepLock.map(takeUpkeep) ?? true
        if let timerShards { service.ownTimerShards(timerShards.hold().sorted()) }
        service.watchPlayback()
        service.flushActivity()
        hub.pingIdle()
        if ticks % OperationalCounts.interval == 0 { readOperationalCounts() }
        if ticks % 60 == 0, runsUpkeep {
            do { try service.expireParties() } catch { Log.error("party expiry: \(error)") }
        }
    }

    /// Holds (or asks for) the upkeep lock; the instance that takes it over runs the start-up upkeep
    /// first, so a party that came due while its owner was gone ends now. On `upkeep` only.
    private func takeUpkeep(_ lock: UpkeepLock) -> Bool {
        let owner = lock.hold()
        if owner, !ranUpkeep {
            Log.info("upkeep: this instance runs it now")
            do {
                try service.expireParties()
                try service.repairDanglingPlayback(listen: false)
            } catch {
                Log.error("upkeep take-over: \(error)")
            }
        }
        ranUpkeep = owner
        service.runsUpkeep = owner
        return owner
    }

    private func defaultPublicURL(port: UInt16) -> String {
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? (NetworkAddress.firstLANIPv4() ?? "127.0.0.1")
            : configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        return "\(scheme)://\(host):\(port)"
    }

    /// The SQLite file in the data folder, as before `--database` existed; only this user may read it.
    static func openSQLite(in dataDirectory: String) throws -> PartyStore {
        try StartupError.checkDataFolder(dataDirectory)
        let databasePath = dataDirectory + "/musicvoting.sqlite"
        let store: PartyStore
        do { store = try PartyStore(path: databasePath) } catch {
            throw StartupError.database(path: databasePath, reason: String(describing: error))
        }
        for suffix in ["", "-wal", "-shm"] where FileManager.default.fileExists(atPath: databasePath + suffix) {
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: databasePath + suffix)
        }
        return store
    }

    /// `--database postgres://…`: connects once and migrates; a wrong URL or a server out of reach stops the start.
    static func openPostgreSQL(_ url: String) throws(StartupError) -> PartyStore {
        guard let components = URLComponents(string: url), ["postgres", "postgresql"].contains(components.scheme ?? "") else {
            throw .databaseURL(url)
        }
        do { return try PartyStore(postgreSQL: url) } catch {
            let reason = (error as? DatabaseError)?.message ?? String(describing: error)
            throw .postgreSQL(url: StartupError.withoutPassword(components), reason: reason)
        }
    }

    /// The names a browser may reach this machine by: the public URL's host, the machine's name and its mDNS name.
    static func ownHostNames(publicURL: String?) -> [String] {
        var names = publicURL.flatMap { URL(string: $0)?.host }.map { [$0] } ?? []
        var buffer = [CChar](repeating: 0, count: 256)
        if gethostname(&buffer, buffer.count - 1) == 0 {
            let name = String(decoding: buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            if !name.isEmpty { names += [name, name + ".local"] }
        }
        return names
    }

}
