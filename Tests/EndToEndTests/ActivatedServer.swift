import Foundation
import PartyTestSupport
import TestSupport

/// The listening socket systemd holds for `musicvoting.socket`, held by the test instead: bound to 127.0.0.1 on a
/// free port, it stays open (connections queue in it) while the servers it is passed to come and go.
final class PassedSocket {
    let descriptor: Int32
    let port: UInt16

    init() throws {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, length) == 0 && listen(descriptor, 511) == 0 && getsockname(descriptor, $0, &length) == 0
            }
        }
        guard descriptor >= 0, bound else {
            close(descriptor)
            throw TestFailure(description: "cannot listen on 127.0.0.1: \(String(cString: strerror(errno)))")
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    deinit { close(descriptor) }
}

/// The real binary started as systemd starts it from `musicvoting.socket` (sd_listen_fds(3)): the passed socket as
/// descriptor 3, `LISTEN_FDS=1` and `LISTEN_PID` naming the server's own process (a shell sets it to its `$$` and
/// execs the binary, which keeps the process). Nothing else of the test process is inherited. Killed in `deinit`.
final class ActivatedServer: PartyHost {
    let pid: pid_t
    let port: UInt16
    let logPath: String
    private let output: FileHandle
    private var status: Int32?

    init(socket: PassedSocket, arguments: [String]) throws {
        port = socket.port
        logPath = FileManager.default.temporaryDirectory.appendingPathComponent("mv-activated-\(UUID().uuidString).log").path
        var pipeEnds: [Int32] = [0, 0]
        // Close-on-exec from the start (a socket pair: Glibc's module has no pipe2): another test's child started in
        // between must not inherit the write end, or the read below would never see the end of the output.
        guard socketpair(AF_UNIX, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0, &pipeEnds) == 0 else {
            throw TestFailure(description: "socketpair failed")
        }
        guard let closeFrom = Self.closeFrom else { throw TestFailure(description: "no posix_spawn_file_actions_addclosefrom_np (glibc 2.34+)") }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, pipeEnds[1], 1)
        posix_spawn_file_actions_addopen(&actions, 2, logPath, O_WRONLY | O_CREAT | O_APPEND, 0o600)
        posix_spawn_file_actions_adddup2(&actions, socket.descriptor, 3)
        // Whatever else the test process has open (other tests' connections) stays out of the server.
        _ = closeFrom(&actions, 4)
        let script = "export LISTEN_PID=$$ LISTEN_FDS=1; exec \"$0\" \"$@\""
        let argv = (["/bin/sh", "-c", script, ServerProcess.binary] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, "/bin/sh", &actions, nil, argv, environ)
        close(pipeEnds[1])
        output = FileHandle(fileDescriptor: pipeEnds[0], closeOnDealloc: true)
        guard spawned == 0 else { throw TestFailure(description: "posix_spawn: \(String(cString: strerror(spawned)))") }
        pid = child
        watchForExit(childPid: child)
        // Ready once it says where it listens (the port is the passed socket's).
        var text = ""
        while !text.contains("MusicVoting listening on ") {
            let data = output.availableData
            if data.isEmpty {
                kill()
                throw TestFailure(description: "the server ended before it listened: \(errorOutput())")
            }
            text += String(decoding: data, as: UTF8.self)
        }
    }

    /// glibc's `posix_spawn_file_actions_addclosefrom_np`, which Swift's Glibc module does not import.
    private static let closeFrom: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32)? = {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), "posix_spawn_file_actions_addclosefrom_np") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutablePointer<posix_spawn_file_actions_t>, Int32) -> Int32).self)
    }()

    deinit {
        kill()
        try? FileManager.default.removeItem(atPath: logPath)
    }

    func errorOutput() -> String { (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? "" }

    /// SIGTERM: what `systemctl stop` and `restart` send (`KillSignal=SIGTERM`).
    func terminate() { if status == nil { Glibc.kill(pid, SIGTERM) } }

    /// The exit status once the process ended within `timeout`, else nil (a signal counts as 128 + its number).
    func waitForExit(timeout: TimeInterval) -> Int32? {
        let deadline = Date().addingTimeInterval(timeout)
        while status == nil {
            var raw: Int32 = 0
            if waitpid(pid, &raw, WNOHANG) == pid {
                status = raw & 0x7f == 0 ? (raw >> 8) & 0xff : 128 + (raw & 0x7f)
            } else if Date() >= deadline {
                return nil
            } else {
                Thread.sleep(forTimeInterval: 0.02)
            }
        }
        return status
    }

    func kill() {
        guard status == nil else { return }
        Glibc.kill(pid, SIGKILL)
        _ = waitForExit(timeout: 10)
    }
}
