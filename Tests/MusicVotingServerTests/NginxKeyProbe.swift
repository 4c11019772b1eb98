import Foundation
import PartyTestSupport
import TestSupport

/// Debian's nginx on the printed configuration with one more server, which answers every request with the key the
/// party hash would use for it (`$musicvoting_party`) instead of passing it on. Files in a folder of its own; nginx
/// stopped and the folder removed in `stop()` and deinit.
final class NginxKeyProbe {
    static let binary = "/usr/sbin/nginx"
    let folder: String
    let port: UInt16
    private let pid: pid_t
    private var stopped = false

    init(printed: String) throws {
        folder = "/tmp/mv-nginx-key-" + testRunTag + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: false)
        port = try freeLoopbackPort()
        try printed.write(toFile: folder + "/musicvoting.conf", atomically: true, encoding: .utf8)
        let main = nginxMainConfiguration(folder: folder, workerConnections: 64, servers: """
                server {
                    listen 127.0.0.1:\(port);
                    location / { return 200 "[$musicvoting_party]"; }
                }
            """)
        try main.write(toFile: folder + "/nginx.conf", atomically: true, encoding: .utf8)
        pid = try spawnProcess([Self.binary, "-p", folder, "-c", folder + "/nginx.conf", "-e", folder + "/error.log", "-g", "daemon off;"],
                               output: folder + "/output.log", wait: false)
        guard eventually(timeout: 10, { (try? self.key(for: "/")) != nil }) else {
            let log = (try? String(contentsOfFile: folder + "/output.log", encoding: .utf8)) ?? ""
            stop()
            throw NginxProbeFailure(description: "nginx did not start on the printed configuration: \(log)")
        }
    }

    deinit { stop() }

    func stop() {
        guard !stopped else { return }
        stopped = true
        kill(pid, SIGTERM)
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: folder)
    }

    /// The hash key for a request with this raw request target (sent as it is).
    func key(for target: String) throws -> String {
        let connection = try Connection(port: port)
        try connection.write(Array("GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
        guard let open = text.lastIndex(of: "["), text.hasSuffix("]") else { throw NginxProbeFailure(description: "no key in \(text)") }
        return String(text[text.index(after: open)..<text.index(before: text.endIndex)])
    }
}

struct NginxProbeFailure: Error, CustomStringConvertible {
    let description: String
}
