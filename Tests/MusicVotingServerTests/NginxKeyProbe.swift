import Foundation
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
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        defer { close(descriptor) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard connected == 0 else { throw NginxProbeFailure(description: "nginx does not accept on \(port)") }
        let request = Array("GET \(target) HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8)
        _ = request.withUnsafeBytes { send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
        var answer: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4_096)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            guard count > 0 else { break }
            answer += chunk[..<count]
        }
        let text = String(decoding: answer, as: UTF8.self)
        guard let open = text.lastIndex(of: "["), text.hasSuffix("]") else { throw NginxProbeFailure(description: "no key in \(text)") }
        return String(text[text.index(after: open)..<text.index(before: text.endIndex)])
    }
}

struct NginxProbeFailure: Error, CustomStringConvertible {
    let description: String
}
