import Synchronization

/// Remote provider calls run on worker threads while their connections are suspended. At most `limit` per
/// provider run at once; one more fails fast with 503 instead of queueing: with a slow upstream, 300 queued
/// searches once took 85 threads and made a cached search wait 72 s (issue 10).
public final class RemoteCallGate: Sendable {
    public let limit: Int
    private let inFlight = Mutex<[String: Int]>([:])

    public init(limit: Int = 8) { self.limit = limit }

    /// Takes a slot for `provider`, or returns false when all are busy.
    public func enter(_ provider: String) -> Bool {
        inFlight.withLock { counts in
            guard counts[provider, default: 0] < limit else { return false }
            counts[provider, default: 0] += 1
            return true
        }
    }

    public func leave(_ provider: String) {
        inFlight.withLock { counts in counts[provider, default: 1] -= 1 }
    }
}
