import Foundation
import Synchronization

/// `/readyz`: whether this instance should get new requests. Not before its start-up finished, not while it
/// drains, and not while its database cannot take a write. `/healthz` stays "the process answers", so a load
/// balancer takes an instance out of rotation without a supervisor restarting it for a database outage.
final class Readiness: Sendable {
    enum Phase: Sendable {
        case starting
        case ready
        case draining
    }

    /// Seconds between two database probes; a probe older than `staleAfter` counts as failed (it hangs).
    static let probeInterval: TimeInterval = 1
    static let staleAfter: TimeInterval = 2

    private struct State {
        var phase = Phase.starting
        /// Uptime seconds of the last probe that found the database writable; nil: none yet, or the last failed.
        var writableAt: TimeInterval?
    }

    private let state = Mutex(State())
    /// Asks the database whether it takes a write; nil: the process' own SQLite file, which needs no probe.
    private let probe: (@Sendable () -> Bool)?

    init(probe: (@Sendable () -> Bool)?) {
        self.probe = probe
        guard let probe else { return }
        let thread = Thread { [weak self] in
            while let readiness = self {
                let writable = probe()
                readiness.state.withLock { $0.writableAt = writable ? Self.uptime() : nil }
                if readiness.state.withLock({ $0.phase == .draining }) { return }
                Thread.sleep(forTimeInterval: Self.probeInterval)
            }
        }
        thread.start()
    }

    func started() { state.withLock { if $0.phase == .starting { $0.phase = .ready } } }

    func drain() { state.withLock { $0.phase = .draining } }

    var phase: Phase { state.withLock { $0.phase } }

    /// Nil when ready, else why not (for the answer's body and the log).
    func reasonNotReady() -> String? {
        let (phase, writableAt) = state.withLock { ($0.phase, $0.writableAt) }
        switch phase {
        case .starting: return "starting"
        case .draining: return "draining"
        case .ready:
            guard probe != nil else { return nil }
            guard let writableAt, Self.uptime() - writableAt <= Self.staleAfter else { return "database" }
            return nil
        }
    }

    private static func uptime() -> TimeInterval { Double(DispatchTime.now().uptimeNanoseconds) / 1e9 }
}
