import Foundation
import CMicroHTTPD
import CMicroHTTPDErrors
import Synchronization
import Metrics

/// An HTTP server on libmicrohttpd. Owns the daemon; handlers run synchronously on its worker threads.
public final class Server: @unchecked Sendable {
    /// SPEC/issue: JSON bodies are capped; a larger body answers 413.
    public static let maxBodyBytes = 64 * 1024
    /// A declared body over `maxBodyBytes` but at most this (nginx's default `client_max_body_size`) is read and
    /// dropped before the 413, so the connection stays open: answering first and closing on unread bytes makes the
    /// kernel reset the connection, and a proxy still sending the body turns that into a 502.
    public static let drainedBodyBytes = 1024 * 1024

    public struct Configuration: Sendable {
        public var host: String
        public var port: UInt16
        public var threads: Int
        /// NOTES-libmicrohttpd: the default cap is 1,020; SSE clients need more. See `connectionLimit(openFiles:)`.
        public var connectionLimit: Int
        /// Connections one client address may hold at once (0: no limit), so one phone cannot take every slot.
        public var perAddressConnectionLimit: Int
        /// Connections one network (IPv4 /24, IPv6 /64) may hold at once (0: no limit): one attacker with many
        /// addresses cannot take every slot. All guests on one home LAN share it, hence a fraction of the total.
        public var perPrefixConnectionLimit: Int
        /// Seconds a connection may sit idle (headers trickling in, keep-alive between requests); event
        /// streams get `streamTimeout` instead, and a request body must arrive within `bodyDeadline`.
        public var idleTimeout: Int
        public var tlsKeyPEM: String?
        public var tlsCertificatePEM: String?
        /// A listening socket passed by a supervisor (systemd's socket activation) to serve instead of binding
        /// `host` and `port`; nil binds them.
        public var inheritedSocket: Int32?

        public init(host: String = "0.0.0.0", port: UInt16 = 8080, threads: Int = 2, connectionLimit: Int = 16_000,
                    perAddressConnectionLimit: Int = 64, perPrefixConnectionLimit: Int? = nil, idleTimeout: Int = Server.idleTimeout,
                    tlsKeyPEM: String? = nil, tlsCertificatePEM: String? = nil) {
            self.host = host
            self.port = port
            self.threads = threads
            self.connectionLimit = connectionLimit
            self.perAddressConnectionLimit = perAddressConnectionLimit
            self.perPrefixConnectionLimit = perPrefixConnectionLimit ?? Server.defaultPerPrefixConnectionLimit(connectionLimit: connectionLimit)
            self.idleTimeout = idleTimeout
            self.tlsKeyPEM = tlsKeyPEM
            self.tlsCertificatePEM = tlsCertificatePEM
        }
    }

    /// Why the server could not start, as one sentence that says what to do (printed before exit code 1).
    /// Half the connections: an attacker's prefix cannot lock out guests of another one (IPv6 phones, a
    /// second Wi-Fi), while a home LAN's guests, all in one /24, still share the larger part.
    public static func defaultPerPrefixConnectionLimit(connectionLimit: Int) -> Int { max(1, connectionLimit / 2) }

    public enum StartError: Error, CustomStringConvertible {
        case invalidHost(String)
        case portInUse(UInt16)
        case privilegedPort(UInt16)
        case addressNotHere(String)
        case cannotListen(host: String, port: UInt16, reason: String)
        /// The daemon refused to start on a bound socket: with TLS, the certificate or key is not usable.
        case cannotStart(tls: Bool)
        /// The descriptor systemd was to pass (LISTEN_FDS) is not a listening TCP socket.
        case notAListeningSocket(Int32)

        public var description: String {
            switch self {
            case .invalidHost(let host):
                return "--host \(host) is not an IP address: use 0.0.0.0 (every IPv4 address), :: (IPv6 and IPv4) or one of this machine's addresses."
            case .portInUse(let port):
                return "Port \(port) is already in use by another program: stop that program or start MusicVoting with --port and a free port."
            case .privilegedPort(let port):
                return "Port \(port) needs administrator rights: use a port above 1023 (e.g. --port 8080), or allow it with `setcap cap_net_bind_service=+ep` on the binary."
            case .addressNotHere(let host):
                return "This machine has no address \(host): use --host 0.0.0.0 (every IPv4 address) or --host :: (IPv6 and IPv4)."
            case let .cannotListen(host, port, reason):
                return "Cannot listen on \(host) port \(port) (\(reason)): check --host and --port."
            case .cannotStart(let tls):
                return tls ? "The TLS certificate or key cannot be used: check that --tls-cert and --tls-key are a matching PEM certificate and private key."
                    : "The HTTP server cannot start: see the message above."
            case .notAListeningSocket(let descriptor):
                return "Descriptor \(descriptor), passed by systemd (LISTEN_FDS), is not a listening TCP socket: check ListenStream= in musicvoting.socket."
            }
        }
    }

    /// An event stream writes at least a keepalive every few seconds; a client that stops reading is found
    /// when its socket buffer fills and writes stop for this long.
    public static let streamTimeout: UInt32 = 60
    /// A request body (at most `maxBodyBytes`) trickling in for longer than this closes the connection.
    public static let bodyDeadline: TimeInterval = 30
    /// A request head (at most 4 KiB, `MV_REQUEST_HEAD_LIMIT`) must be complete this long after accept, however
    /// slowly it trickles: libmicrohttpd's idle timeout alone is reset by every byte.
    public static let headDeadline: TimeInterval = 10

    /// Seconds a connection may sit idle unless configured otherwise (libmicrohttpd's MHD_OPTION_CONNECTION_TIMEOUT).
    public static let idleTimeout = 15
    /// Seconds the proxy in front keeps an idle connection to an instance for its next request (nginx's upstream
    /// `keepalive_timeout`, as `musicvoting nginx-config` prints it). Well under `idleTimeout`, so the proxy, never
    /// the instance, ends a kept connection that sat idle: a request the proxy sends on a connection the instance
    /// closed at that moment fails, and nginx does not send a like (a POST) again.
    public static let proxyIdleTimeout = 4

    /// Answers every request; replaced only before `start` (its metrics need the server made first).
    public var respond: @Sendable (Request) -> Response
    private var daemon: OpaquePointer?
    /// Set before the daemon starts, read by its callbacks.
    private(set) var connections: ConnectionGuard?
    /// The event streams libmicrohttpd handed over (nil with TLS, whose bytes only libmicrohttpd's GnuTLS session
    /// can write: those streams stay its own).
    private(set) var streamSockets: StreamSockets?
    private var sweep: DispatchSourceTimer?
    public private(set) var port: UInt16 = 0
    /// The listening socket once `stopAccepting` took it from the daemon; closed after the daemon stopped.
    private var quiescedSocket: Int32 = -1
    /// Whether a supervisor holds the listening socket too (`ListeningSocket.isShared`).
    private var listeningSocketIsShared = false
    /// Set by `stopAccepting`: every answer from then on closes its connection.
    private let draining = Atomic(false)
    /// Requests read and not yet answered to the end (an open event stream is one until it ends).
    private let inProgress = Atomic(0)

    var isDraining: Bool { draining.load(ordering: .relaxed) }

    /// Requests read and not yet fully answered: a drain waits for them.
    public var requestsInProgress: Int { inProgress.load(ordering: .relaxed) }

    func requestStarted() { inProgress.wrappingAdd(1, ordering: .relaxed) }

    func requestFinished() { inProgress.wrappingSubtract(1, ordering: .relaxed) }

    /// Connections open now (event streams, kept-alive and busy ones).
    public var openConnections: Int { connections?.openCount ?? 0 }

    /// Connections accepted since the start; next to the requests answered, how many requests a connection carries
    /// (behind nginx, how well its upstream keepalive works).
    public let acceptedConnections = Counter("musicvoting_http_connections_accepted_total",
                                             help: "HTTP connections accepted; a kept-alive connection counts once, however many requests it carries.")

    public init(respond: @escaping @Sendable (Request) -> Response) {
        self.respond = respond
    }

    /// Where libmicrohttpd's own diagnostics go (nil: its standard error, as text): set before a server starts.
    static let libraryLog = Mutex<(@Sendable (String) -> Void)?>(nil)

    public static func sendLibraryLog(to handler: @escaping @Sendable (String) -> Void) { libraryLog.withLock { $0 = handler } }

    public func start(_ configuration: Configuration) throws(StartError) {
        // Epoll (select resets sockets numbered ≥ 1024) with suspend/resume for SSE; a small thread pool,
        // not a thread per connection (NOTES-libmicrohttpd: that combination delays and loses events).
        let flags = UInt32(MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
            | MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue)
        if configuration.tlsKeyPEM == nil {
            streamSockets = StreamSockets(stalledAfter: Self.streamTimeout, writers: configuration.threads)
        }
        let context = Unmanaged.passUnretained(self).toOpaque()
        let socket: ListeningSocket
        if let inherited = configuration.inheritedSocket {
            socket = try ListeningSocket(inherited: inherited)
        } else {
            socket = try ListeningSocket(host: configuration.host, port: configuration.port)
        }
        listeningSocketIsShared = socket.isShared
        let connections = ConnectionGuard(perPrefixLimit: configuration.perPrefixConnectionLimit, totalLimit: configuration.connectionLimit,
                                          headDeadline: Self.headDeadline,
                                          idleTimeout: TimeInterval(configuration.idleTimeout))
        self.connections = connections
        let callbacks = mv_daemon_callbacks(
            completed: requestCompleted, completedContext: context, acceptPolicy: acceptPolicy, acceptPolicyContext: context,
            connectionNotified: connectionNotified, connectionNotifiedContext: context, requestLineReceived: mv_request_line_received)
        daemon = mv_start_daemon(
            flags | (socket.isIPv6 ? UInt32(MHD_USE_IPv6.rawValue) : 0), socket.handOver(), accessHandler, context, callbacks,
            UInt32(clamping: configuration.connectionLimit), UInt32(clamping: configuration.perAddressConnectionLimit),
            UInt32(clamping: max(1, configuration.threads)), UInt32(clamping: configuration.idleTimeout),
            configuration.tlsKeyPEM, configuration.tlsCertificatePEM, Self.libraryLog.withLock { $0 } == nil ? nil : forwardLibraryLog)
        guard let daemon else { throw .cannotStart(tls: configuration.tlsKeyPEM != nil) }
        port = mv_daemon_port(daemon)
        let sweep = DispatchSource.makeTimerSource(queue: DispatchQueue(label: "musicvoting.http.head-deadline"))
        sweep.schedule(deadline: .now() + 1, repeating: 1)
        sweep.setEventHandler { [connections] in connections.sweep() }
        sweep.resume()
        self.sweep = sweep
    }

    /// The first step of a drain: new connections are refused (a proxy in front tries the next instance at once),
    /// while the open ones are served; each answer from now on closes its connection, so kept-alive clients leave.
    /// "MHD_quiesce_daemon: stop accepting connections from the listening socket. Allows clients to continue
    /// processing" — the socket stays ours to close, after MHD_stop_daemon; shut down now, it refuses connections.
    /// A socket systemd holds too is left listening: new connections wait in its queue for the next server (a
    /// shutdown would reset them and stop the socket for systemd as well).
    public func stopAccepting() {
        guard let daemon, quiescedSocket < 0 else { return }
        draining.store(true, ordering: .relaxed)
        let socket = MHD_quiesce_daemon(daemon)
        guard socket >= 0 else { return }
        if !listeningSocketIsShared { shutdown(socket, Int32(SHUT_RDWR)) }
        quiescedSocket = socket
    }

    /// Stops accepting and closes every connection. Streams must be closed (and resumed) first. Deferred work
    /// still running gets up to `patience` seconds (the providers' timeout is 10 s).
    public func stop(patience: TimeInterval = 12) {
        guard let daemon else { return }
        self.daemon = nil
        sweep?.cancel()
        sweep = nil
        // Deferred work's connections must be resumed before the daemon stops.
        _ = DeferredResponse.inFlight.wait(timeout: .now() + max(0, patience))
        Thread.sleep(forTimeInterval: 0.05)
        streamSockets?.stop()
        MHD_stop_daemon(daemon)
        if quiescedSocket >= 0 {
            close(quiescedSocket)
            quiescedSocket = -1
        }
    }

    deinit { stop() }
}
