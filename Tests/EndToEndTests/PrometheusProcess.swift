import Foundation
import PartyTestSupport
import TestSupport

/// Debian's `prometheus` server in a temporary folder on a free loopback port, scraping one target every second.
/// Killed in `stop()` and deinit, and by a watcher shell should the test process die without running either.
final class PrometheusProcess {
    let port: UInt16
    let folder: String
    private let pid: pid_t
    private var stopped = false

    init(scraping target: String) throws {
        // The run's tag in the name: Tests/run-all.sh looks for this run's leftovers by it.
        folder = "/tmp/mv-prometheus-" + testRunTag + UUID().uuidString.prefix(8).lowercased()
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true)
        port = try freeLoopbackPort()
        try """
            global:
              scrape_interval: 1s
              evaluation_interval: 1s
            scrape_configs:
              - job_name: musicvoting
                static_configs:
                  - targets: ["\(target)"]
            """.write(toFile: folder + "/prometheus.yml", atomically: true, encoding: .utf8)
        pid = try spawnProcess(["/usr/bin/prometheus", "--config.file=\(folder)/prometheus.yml", "--storage.tsdb.path=\(folder)/data",
                                "--web.listen-address=127.0.0.1:\(port)"], output: folder + "/log", wait: false)
        _ = try spawnProcess(["/bin/sh", "-c", "while kill -0 \(getpid()) 2>/dev/null; do sleep 1; done; kill -9 \(pid) 2>/dev/null"],
                             output: "/dev/null", wait: false)
    }

    /// The value of an instant PromQL query with one result, nil while it has none.
    func query(_ expression: String) throws -> Double? {
        let encoded = expression.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? expression
        let response = try HTTPClient(port: port).get("/api/v1/query?query=\(encoded)")
        guard response.status == 200, let data = response.json["data"] as? [String: Any],
              let result = (data["result"] as? [[String: Any]])?.first, let value = result["value"] as? [Any],
              let text = value.last as? String else { return nil }
        return Double(text)
    }

    var log: String { (try? String(contentsOfFile: folder + "/log", encoding: .utf8)) ?? "" }

    /// Once: the test's own stop and deinit both call it, and a second SIGKILL could reach a process that has
    /// since been given the reaped pid.
    func stop() {
        guard !stopped else { return }
        stopped = true
        guard kill(pid, SIGKILL) == 0 else { return }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 && errno == EINTR {}
        try? FileManager.default.removeItem(atPath: folder)
    }

    deinit { stop() }
}
