import Foundation
import TestSupport

/// The real `musicvoting` binary on 127.0.0.1, port 0, with its own temporary data folder.
package final class ServerProcess {
    package let process = Process()
    package let dataDirectory: String
    package private(set) var port: UInt16 = 0
    private let output = Pipe()
    /// The server's standard error goes to a file: a pipe nobody reads would fill and block the server.
    private let logPath: String
    /// Set once a test ends the server itself; an exit before that is the server's own.
    private var stopping = false

    package static var binary: String {
        if let path = ProcessInfo.processInfo.environment["MUSICVOTING_BINARY"] { return path }
        if let built = builtExecutable("musicvoting") { return built }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent(".build/debug/musicvoting").path
    }

    package static var repositoryRoot: String {
        URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent().path
    }

    /// `openFileSoftLimit` starts the server with that soft descriptor limit (util-linux `prlimit`), as a
    /// fresh shell has it (1,024), to see that the server raises it itself.
    package init(dataDirectory: String? = nil, arguments: [String] = [], openFileSoftLimit: Int? = nil,
         environment: [String: String] = [:]) throws {
        self.dataDirectory = dataDirectory ?? FileManager.default.temporaryDirectory
            .appendingPathComponent("mv-e2e-\(UUID().uuidString)").path
        // No --resources: the end-to-end tests see the pages and assets built into the binary, as users do.
        let serverArguments = ["--host", "127.0.0.1", "--port", "0", "--data", self.dataDirectory] + arguments
        if let openFileSoftLimit {
            process.executableURL = URL(fileURLWithPath: "/usr/bin/prlimit")
            process.arguments = ["--nofile=\(openFileSoftLimit):", Self.binary] + serverArguments
        } else {
            process.executableURL = URL(fileURLWithPath: Self.binary)
            process.arguments = serverArguments
        }
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = output
        logPath = self.dataDirectory + ".log"
        _ = FileManager.default.createFile(atPath: logPath, contents: nil)
        process.standardError = FileHandle(forWritingAtPath: logPath)
        try process.run()
        port = try readPort()
    }

    private func readPort() throws -> UInt16 {
        // A loaded machine (a test run beside a build) can take many seconds to start a process: the ceiling is for
        // that, and it holds even while the server says nothing (each read waits for data at most until then).
        let deadline = Date().addingTimeInterval(60)
        var text = ""
        let handle = output.fileHandleForReading
        while Date() < deadline {
            var ready = pollfd(fd: handle.fileDescriptor, events: Int16(POLLIN), revents: 0)
            let waited = poll(&ready, 1, Int32(max(1, deadline.timeIntervalSinceNow * 1000)))
            if waited < 0 && errno == EINTR { continue }
            guard waited > 0 else { break }
            let data = handle.availableData
            if data.isEmpty { break }
            text += String(decoding: data, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MusicVoting listening on ") }),
               let port = line.split(separator: ":").last.flatMap({ UInt16($0) }) {
                return port
            }
        }
        let state = process.isRunning ? "still running after 60 s" : "exited with \(process.terminationStatus)"
        kill()
        throw TestFailure(description: "server did not report its port (\(state)): \(text) \(errorOutput().suffix(1_000))")
    }

    package var client: TestClient { TestClient(server: self) }

    /// The sum of the samples on its /metrics whose line starts with `prefix` (a name, with `{` and labels to pick
    /// some); nil when none does or the server does not answer.
    package func metric(_ prefix: String) -> Int? {
        guard let text = try? client.get("/metrics").text else { return nil }
        let samples = text.split(separator: "\n").filter { $0.hasPrefix(prefix) }
            .map { Int(Double($0.split(separator: " ").last ?? "") ?? 0) }
        return samples.isEmpty ? nil : samples.reduce(0, +)
    }

    /// The server's resident memory in KiB, from /proc.
    package func residentKiB() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/status", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return line.split(separator: " ").compactMap { Int($0) }.first
    }

    /// The server's soft and hard open-file limits, from /proc.
    package func openFileLimits() -> (soft: Int, hard: Int)? {
        guard let text = try? String(contentsOfFile: "/proc/\(process.processIdentifier)/limits", encoding: .utf8),
              let line = text.split(separator: "\n").first(where: { $0.hasPrefix("Max open files") }) else { return nil }
        let numbers = line.split(separator: " ").compactMap { Int($0) }
        return numbers.count >= 2 ? (numbers[0], numbers[1]) : nil
    }

    /// Everything the server wrote to standard error (the access log); only after it exited.
    package func errorOutput() -> String {
        (try? String(contentsOfFile: logPath, encoding: .utf8)) ?? ""
    }

    package var exitStatus: Int32 { process.terminationStatus }

    /// SIGTERM without waiting: a drain the test watches.
    package func terminate() {
        stopping = true
        process.terminate()
    }

    /// SIGTERM and wait: the clean shutdown path. A server that already crashed or failed (not asked to stop,
    /// not ended by a signal a test sends) says so on standard error with its log's tail, so a test that then
    /// fails on a refused connection shows why.
    package func stop() {
        guard process.isRunning else {
            let signalled = process.terminationReason == .uncaughtSignal
            if !stopping, signalled ? ![SIGTERM, SIGKILL, SIGINT].contains(process.terminationStatus) : process.terminationStatus != 0 {
                let why = "\(signalled ? "signal" : "status") \(process.terminationStatus)"
                let report = "server \(process.processIdentifier) exited by itself (\(why)), its log ends: \(errorOutput().suffix(2_000))\n"
                FileHandle.standardError.write(Data(report.utf8))
            }
            return
        }
        stopping = true
        process.terminate()
        if !ends(within: 10) { kill() }
    }

    /// SIGKILL: nothing gets to flush. The wait is bounded: Foundation's `Process` has missed a child's end here
    /// (`RunToExit.swift`), and `waitUntilExit` then hung the whole test run. Past 10 s it says what /proc shows.
    package func kill() {
        guard process.isRunning else { return }
        stopping = true
        let pid = process.processIdentifier
        Foundation.kill(pid, SIGKILL)
        if !ends(within: 10) {
            let state = (try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)).map { " (/proc says: \($0.prefix(60)))" } ?? " (gone from /proc)"
            FileHandle.standardError.write(Data("server \(pid) killed 10 s ago and its end not reported\(state)\n".utf8))
        }
    }

    /// Whether the process ended (as Foundation reports it) within `seconds`.
    private func ends(within seconds: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while process.isRunning, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
        return !process.isRunning
    }

    deinit { kill() }
}
