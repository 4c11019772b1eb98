import Foundation
import Testing
import TestSupport
@testable import MusicVotingKit

/// A server that answers slowly costs the CLI time, not a CPU core: it sleeps until bytes arrive.
@Suite("Waiting for a slow server")
struct WaitingTests {
    /// CPU seconds (user and system) the process `pid` has used so far, from /proc; nil once it is gone.
    static func cpuSeconds(_ pid: pid_t) -> Double? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
              let nameEnd = text.lastIndex(of: ")") else { return nil }
        // After the command name: state, then 10 fields, then utime and stime in clock ticks.
        let fields = text[text.index(after: nameEnd)...].split(separator: " ")
        guard fields.count > 12, let user = Double(fields[11]), let system = Double(fields[12]) else { return nil }
        return (user + system) / Double(sysconf(Int32(_SC_CLK_TCK)))
    }

    @Test func theCLIWaitsForATrickledAnswerWithoutSpinning() throws {
        let joined = #"{"id":"p"}"#
        let track = #"{"id":"t1","uri":"demo:track:1","name":"Slow Song","artists":[{"name":"A"}],"album":{"name":"","images":[]},"#
            + #""duration_ms":1000,"likeCount":0,"isCurrentlyPlaying":false,"autofilled":false}"#
        let server = try HostileServer { connection in
            if connection.head.hasPrefix("GET /api/party/join/1234 ") {
                // The head at once, then the body a byte every 0.3 s: three seconds in all.
                connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(joined.utf8.count)\r\nConnection: close\r\n\r\n")
                for byte in joined.utf8 {
                    Thread.sleep(forTimeInterval: 0.3)
                    guard connection.send([byte]) else { return }
                }
            } else {
                connection.send(HostileServerTests.json(#"{"queue":[\#(track)]}"#))
            }
        }
        defer { server.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mv-cli-\(UUID().uuidString)").path
        let log = home + ".log"
        defer { try? FileManager.default.removeItem(atPath: log) }
        let pid = try spawnProcess([KitServer.built("musicvoting-cli"), "--server", server.base.absoluteString, "queue", "--pin", "1234"],
                                   output: log, environment: ["MUSICVOTING_CLI_HOME": home, "LANG": "de_DE.UTF-8"], wait: false)
        var status: Int32 = -1
        func reap() { while waitpid(pid, &status, 0) < 0 && errno == EINTR {} }
        defer { if status == -1 { kill(pid, SIGKILL); reap() } }
        #expect(eventually { !server.requests.isEmpty }, "the CLI asked")
        let started = Date()
        let before = try #require(Self.cpuSeconds(pid))
        Thread.sleep(forTimeInterval: 2)
        let used = try #require(Self.cpuSeconds(pid)) - before
        let wall = Date().timeIntervalSince(started)
        #expect(used < 0.2 * wall, "\(used) s of CPU in \(wall) s of waiting")
        reap()
        let output = (try? String(contentsOfFile: log, encoding: .utf8)) ?? ""
        #expect(status == 0 && output.contains("Slow Song"), "the answer still arrived whole: \(output)")
    }
}
