import Foundation

/// The process' resident memory and open descriptors from /proc/self, under the names Prometheus' own client
/// libraries use, so dashboards made for them work unchanged.
public enum ProcessMetrics {
    public static let families: [any MetricFamily] = [
        Gauge("process_resident_memory_bytes", help: "Resident memory size in bytes.") { Double(residentBytes() ?? 0) },
        Gauge("process_open_fds", help: "Number of open file descriptors.") { Double(openDescriptors() ?? 0) },
        Gauge("process_max_fds", help: "Maximum number of open file descriptors.") { Double(maximumDescriptors() ?? 0) },
    ]

    /// The second field of /proc/self/statm (resident pages) times the page size.
    static func residentBytes() -> Int? {
        guard let text = try? String(contentsOfFile: "/proc/self/statm", encoding: .utf8) else { return nil }
        let fields = text.split(separator: " ")
        guard fields.count > 1, let pages = Int(fields[1]) else { return nil }
        return pages * Int(sysconf(Int32(_SC_PAGESIZE)))
    }

    static func openDescriptors() -> Int? {
        (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")).map { max(0, $0.count - 1) }
    }

    static func maximumDescriptors() -> Int? {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return nil }
        return Int(clamping: limit.rlim_cur)
    }
}
