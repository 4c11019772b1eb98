#if canImport(Glibc)
import Glibc
#endif

/// The process's open-file limit: every connection is a descriptor, so the connection limit follows it
/// (at the usual soft limit of 1,024, about 1,000 streams from one client locked everybody out).
public enum OpenFileLimit {
    /// Raises the soft limit to the hard limit; returns the soft limit now in force.
    @discardableResult
    public static func raiseToHardLimit() -> Int {
        var limit = rlimit()
        guard getrlimit(Int32(RLIMIT_NOFILE.rawValue), &limit) == 0 else { return 1_024 }
        if limit.rlim_cur < limit.rlim_max {
            var raised = limit
            raised.rlim_cur = limit.rlim_max
            if setrlimit(Int32(RLIMIT_NOFILE.rawValue), &raised) == 0 { limit = raised }
        }
        return limit.rlim_cur > rlim_t(Int32.max) ? Int(Int32.max) : Int(limit.rlim_cur)
    }

    /// The connections the server may accept with `openFiles` descriptors: some stay free for the database,
    /// the music library and logs; past 16,000 libmicrohttpd's per-connection memory is the limit that matters.
    public static func connectionLimit(openFiles: Int) -> Int {
        let reserved = 64
        return max(16, min(16_000, openFiles - reserved))
    }
}
