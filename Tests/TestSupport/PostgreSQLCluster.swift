import Foundation
import Synchronization

/// A throwaway PostgreSQL server from Debian's `postgresql` package, in a temporary folder, on 127.0.0.1 and a
/// free port, user `mv` trusted. `shared` starts one per test process on first use and stops it at exit; each
/// test takes its own database (`createDatabase()`). Nothing stays running: `stop()` at exit and in deinit, and
/// a watcher process stops the server should the test process die without running its exit handlers.
public final class PostgreSQLCluster: Sendable {
    public static let binaries = "/usr/lib/postgresql/15/bin"
    public let folder: String
    public let port: UInt16
    /// False for the test runner's server (`MUSICVOTING_TEST_POSTGRES`): the runner stops it, not this process.
    private let owned: Bool
    private let stopped = Mutex(false)

    /// The test process's cluster, started on first use (a failed start is every caller's error). When the runner
    /// started one for all its test processes (Tests/run-swift-tests.sh sets `MUSICVOTING_TEST_POSTGRES` to
    /// "folder:port"), that one: an initdb per process cost about a core-second each.
    public static func shared() throws -> PostgreSQLCluster { try started.get() }

    private static let started = Result { () throws -> PostgreSQLCluster in
        if let given = ProcessInfo.processInfo.environment["MUSICVOTING_TEST_POSTGRES"] {
            guard let colon = given.lastIndex(of: ":"), let port = UInt16(given[given.index(after: colon)...]) else {
                throw ClusterError(description: "MUSICVOTING_TEST_POSTGRES is not folder:port: \(given)")
            }
            return PostgreSQLCluster(runnersFolder: String(given[..<colon]), port: port)
        }
        let cluster = try PostgreSQLCluster()
        running.withLock { $0 = cluster }
        atexit { PostgreSQLCluster.running.withLock { $0 }?.stop() }
        return cluster
    }
    private static let running = Mutex<PostgreSQLCluster?>(nil)

    /// The runner's server, already running: used, never stopped.
    private init(runnersFolder: String, port: UInt16) {
        folder = runnersFolder
        self.port = port
        owned = false
    }

    /// initdb (~2.5 s) and pg_ctl start. initdb refuses root, so as root the server runs as user `postgres`.
    public init() throws {
        owned = true
        // Short: the socket path has a limit. The run's tag lets Tests/run-all.sh tell its own leftovers from the
        // servers of other test runs on the same machine.
        folder = "/tmp/mv-pg-" + testRunTag + UUID().uuidString.prefix(8).lowercased()
        port = try freeLoopbackPort()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        if getuid() == 0, let user = getpwnam("postgres") { chown(folder, user.pointee.pw_uid, user.pointee.pw_gid) }
        try watchForExit()
        try run("initdb", ["-D", folder + "/db", "-U", "mv", "--auth=trust", "--no-locale", "-E", "UTF8", "--nosync"])
        try startServer()
    }

    /// `pg_ctl start` (again, after `stopServer`): same folder, same port.
    public func startServer() throws {
        // More sessions than the default 100: each in-process application on this cluster holds one per shared
        // concern for as long as the test process keeps its party service.
        try run("pg_ctl", ["-D", folder + "/db", "-w", "-l", folder + "/log", "-o",
                           "-F -k \(folder) -c listen_addresses=127.0.0.1 -p \(port) -c max_connections=400", "start"])
    }

    /// `pg_ctl stop -m immediate`, keeping the folder: the database is gone as in a crash until `startServer`.
    public func stopServer() throws {
        try run("pg_ctl", ["-D", folder + "/db", "-m", "immediate", "stop"])
    }

    /// The postmaster's process (first line of `postmaster.pid`), nil while the server is not running.
    public var postmasterPID: pid_t? {
        (try? String(contentsOfFile: folder + "/db/postmaster.pid", encoding: .utf8))?
            .split(separator: "\n").first.flatMap { pid_t($0) }
    }

    /// SIGSTOP to the postmaster and then to each of its children (backends, checkpointer, …; each runs in a session
    /// of its own, so not one process group): the server keeps its sockets open and answers nothing, as behind a
    /// network partition. `resume()` undoes it; `stop()` and the exit watcher resume before stopping.
    public func pause() throws {
        guard let pid = postmasterPID, kill(pid, SIGSTOP) == 0 else {
            throw ClusterError(description: "cannot stop the postmaster: \(String(cString: strerror(errno)))")
        }
        for child in Self.children(of: pid) { kill(child, SIGSTOP) }
    }

    /// SIGCONT to the postmaster's children and the postmaster. Safe to repeat, and when it was not paused.
    public func resume() {
        guard let pid = postmasterPID else { return }
        for child in Self.children(of: pid) { kill(child, SIGCONT) }
        kill(pid, SIGCONT)
    }

    /// The processes whose parent is `parent` (field 4 of `/proc/PID/stat`, after the parenthesized name).
    private static func children(of parent: pid_t) -> [pid_t] {
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.compactMap(pid_t.init).filter { pid in
            guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
                  let close = stat.lastIndex(of: ")") else { return false }
            let fields = stat[stat.index(after: close)...].split(separator: " ")
            return fields.count > 1 && pid_t(fields[1]) == parent
        }
    }

    deinit { stop() }

    /// `pg_ctl stop -m immediate` (the server just ends, as in a crash) and the folder removed. Safe to repeat.
    public func stop() {
        guard owned, stopped.withLock({ wasStopped in defer { wasStopped = true }; return !wasStopped }) else { return }
        resume()  // a paused server would never see pg_ctl's signal
        try? run("pg_ctl", ["-D", folder + "/db", "-m", "immediate", "stop"])
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The URL of `database` on this server for user `mv`.
    /// On the runner's shared server, connections may wait up to 10 s: the product's 2 s (for a hung server) is shorter
    /// than a backend's start takes on a machine loaded by the whole test run, and no test stops or pauses that server.
    public func url(database: String) -> String {
        "postgres://mv@127.0.0.1:\(port)/\(database)" + (owned ? "" : "?connect_timeout=10")
    }

    /// A new empty database (`t_<uuid>`) and its URL.
    public func createDatabase() throws -> String {
        let name = "t_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try run("createdb", ["-h", "127.0.0.1", "-p", String(port), "-U", "mv", name])
        return url(database: name)
    }

    public struct ClusterError: Error, CustomStringConvertible {
        public let description: String
    }

    /// A PostgreSQL program, as user `postgres` when this process is root; its output goes to a log of this process's
    /// own in the folder (several test processes share the runner's server).
    private func run(_ program: String, _ arguments: [String]) throws {
        let path = Self.binaries + "/" + program
        let command = getuid() == 0 ? ["/usr/sbin/runuser", "-u", "postgres", "--", path] + arguments : [path] + arguments
        let output = folder + "/commands-\(getpid()).log"
        let status = try Self.spawn(command, output: output, wait: true)
        guard status == 0 else {
            let log = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
            throw ClusterError(description: "\(program) failed (\(status)): \(log.suffix(2_000))")
        }
    }

    /// A shell that waits for this process to end and then stops the server: a crashed test runs no exit handler.
    private func watchForExit() throws {
        let stop = (getuid() == 0 ? "/usr/sbin/runuser -u postgres -- " : "") + Self.binaries + "/pg_ctl"
        _ = try Self.spawn(["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
                            + "[ -f \(folder)/db/postmaster.pid ] && P=$(head -1 \(folder)/db/postmaster.pid) && "
                            + "kill -CONT $P $(pgrep -P $P); "
                            + "[ -d \(folder)/db ] && \(stop) -D \(folder)/db -m immediate stop; rm -rf \(folder)"],
                           output: "/dev/null", wait: false)
    }

    /// Not Foundation's `Process`: the cluster starts inside `shared`'s one-time initializer while parallel tests wait
    /// for it, and `Process` then never saw its child end.
    private static func spawn(_ command: [String], output: String, wait: Bool) throws -> Int32 {
        do { return try spawnProcess(command, output: output, wait: wait) } catch let error as SpawnError {
            throw ClusterError(description: error.description)
        }
    }
}

/// A port nobody listens on now: bind 127.0.0.1:0, read the port, close.
public func freeLoopbackPort() throws -> UInt16 {
    let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    guard descriptor >= 0 else { throw PostgreSQLCluster.ClusterError(description: "socket: \(String(cString: strerror(errno)))") }
    defer { close(descriptor) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    let bound = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { pointer in
            bind(descriptor, pointer, length) == 0 && getsockname(descriptor, pointer, &length) == 0
        }
    }
    guard bound else { throw PostgreSQLCluster.ClusterError(description: "bind 127.0.0.1:0: \(String(cString: strerror(errno)))") }
    return UInt16(bigEndian: address.sin_port)
}

/// `MUSICVOTING_TEST_TAG` (set by Tests/run-all.sh, at most 12 letters and digits), or nothing: named in the folders of
/// the servers the tests start, so a check for leftovers finds this run's only.
public let testRunTag: String = {
    let tag = ProcessInfo.processInfo.environment["MUSICVOTING_TEST_TAG"] ?? ""
    return tag.count <= 12 && tag.allSatisfy({ $0.isASCII && ($0.isLetter || $0.isNumber) }) ? tag + "-" : ""
}()
