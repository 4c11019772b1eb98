import Foundation
import TestSupport

/// Debian's nginx in front of the instances, as a child of the test (`daemon off`), with its configuration, pid file,
/// error log and temp folders in a temporary folder of its own (`/tmp/mv-nginx-…`). Stopped in `stop()` and deinit.
package final class NginxProcess {
    package enum Balancing {
        /// Routing: `hash … consistent` on the party id from the path (or the stream's `partyId`).
        case partyHash
        /// Plain round-robin: correctness must not depend on affinity.
        case roundRobin
    }

    package static let binary = "/usr/sbin/nginx"
    package let folder: String
    package let port: UInt16
    private let process = Process()

    /// `port`: one picked before (the instances' `--public-url` names it), else a free one.
    package init(upstreams: [UInt16], balancing: Balancing, port chosen: UInt16? = nil) throws {
        folder = "/tmp/mv-nginx-" + testRunTag + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        port = try chosen ?? freeLoopbackPort()
        let configuration = folder + "/nginx.conf"
        do {
            try Self.configuration(folder: folder, port: port, upstreams: upstreams, balancing: balancing)
                .write(toFile: configuration, atomically: true, encoding: .utf8)
        } catch {
            try? FileManager.default.removeItem(atPath: folder)
            throw error
        }
        process.executableURL = URL(fileURLWithPath: Self.binary)
        process.arguments = ["-p", folder, "-c", configuration, "-e", folder + "/error.log", "-g", "daemon off;"]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle(forWritingAtPath: "/dev/null")
        try process.run()
        watchForExit(childPid: process.processIdentifier)
        guard eventuallyAccepts(port: port) else {
            stop()
            throw TestFailure(description: "nginx did not listen on \(port): \(errorLog())")
        }
    }

    deinit { stop() }

    package var client: TestClient { TestClient(server: LivePort(port)) }

    package func errorLog() -> String { (try? String(contentsOfFile: folder + "/error.log", encoding: .utf8)) ?? "" }

    /// SIGTERM is nginx's fast shutdown (SIGQUIT would wait for the open streams); then the folder goes.
    package func stop() {
        if process.isRunning {
            process.terminate()
            let deadline = Date().addingTimeInterval(10)
            while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.02) }
            if process.isRunning { kill(process.processIdentifier, SIGKILL); process.waitUntilExit() }
        }
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The binary's own `nginx-config` (what docs/scaling.md installs) inside a main configuration
    /// that keeps nginx's pid, logs and temp folders in `folder`.
    package static func configuration(folder: String, port: UInt16, upstreams: [UInt16], balancing: Balancing) throws -> String {
        let arguments = ["nginx-config", "--listen", "127.0.0.1:\(port)"] + upstreams.flatMap { ["--upstream", "127.0.0.1:\($0)"] }
            + (balancing == .roundRobin ? ["--round-robin"] : [])
        let printed = try runToExit(ServerProcess.binary, arguments)
        guard printed.status == 0 else { throw TestFailure(description: "nginx-config: \(printed.output)") }
        try printed.output.write(toFile: folder + "/musicvoting.conf", atomically: true, encoding: .utf8)
        return nginxMainConfiguration(folder: folder, workerConnections: 1024)
    }
}

/// Should the test process die without its deinits (a crash), a shell kills `childPid` once this process is gone:
/// nothing of a cluster test stays running. Only that very process: the shell notes its start time (field 22 of
/// /proc/PID/stat) and kills only a process with the same one. A child that ended normally long before leaves its
/// PID free, and PIDs wrap at 32,768 while a test run spawns thousands: a reused PID may be any other program on the
/// machine, another test run's browser included.
package func watchForExit(childPid: Int32) {
    let startTime = "sed 's/.*) //' /proc/\(childPid)/stat 2>/dev/null | cut -d' ' -f20"
    let watcher = Process()
    watcher.executableURL = URL(fileURLWithPath: "/bin/sh")
    watcher.arguments = ["-c", "S=$(\(startTime)); [ -n \"$S\" ] || exit 0; "
                         + "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; "
                         + "[ \"$(\(startTime))\" = \"$S\" ] && kill -9 \(childPid) 2>/dev/null; true"]
    watcher.standardInput = FileHandle.nullDevice
    watcher.standardOutput = FileHandle.nullDevice
    watcher.standardError = FileHandle.nullDevice
    try? watcher.run()
}

/// Whether something accepts connections on 127.0.0.1:`port` within the patience.
package func eventuallyAccepts(port: UInt16) -> Bool {
    eventually { (try? Connection(port: port, timeout: 1)) != nil }
}
