import Foundation
import Synchronization

/// A page's event stream as the browser's EventSource holds it, through nginx: when the stream ends (its instance
/// died) it connects again with `Last-Event-ID` set to the last id it saw, until `stop()`: at once, or, with
/// `honoursRetry`, after the stream's last `retry:` as EventSource waits. Keeps every id it received over all its
/// connections, in arrival order, when each reconnect succeeded, and each attempt that got no stream.
package final class ResumingSubscriber: @unchecked Sendable {
    private struct State {
        var ids: [Int] = []
        var connections = 0
        /// Seconds from a stream's end to the next stream's first answer (200).
        var resumeTimes: [TimeInterval] = []
        var failures: [String] = []
        /// Attempts to reconnect that got no answer or another status than 200.
        var failedAttempts: [String] = []
        var current: SSEClient?
        var stopping = false
    }

    private let state = Mutex(State())
    private let finished = DispatchSemaphore(value: 0)

    /// `@unchecked Sendable`: the thread and the test share only `state`, under its lock.
    package init(port: UInt16, path: String, source: String, honoursRetry: Bool = false) {
        Thread { [self] in run(port: port, path: path, source: source, honoursRetry: honoursRetry) }.start()
    }

    package var ids: [Int] { state.withLock { $0.ids } }
    package var connections: Int { state.withLock { $0.connections } }
    package var resumeTimes: [TimeInterval] { state.withLock { $0.resumeTimes } }
    package var failures: [String] { state.withLock { $0.failures } }
    package var failedAttempts: [String] { state.withLock { $0.failedAttempts } }

    /// Closes the stream and waits for the thread. Safe to repeat.
    package func stop() {
        let (stream, first) = state.withLock { state in
            defer { state.stopping = true }
            return (state.current, !state.stopping)
        }
        guard first else { return }
        stream?.close()
        finished.wait()
    }

    private func run(port: UInt16, path: String, source: String, honoursRetry: Bool) {
        defer { finished.signal() }
        var endedAt: Date?
        while !state.withLock({ $0.stopping }) {
            let lastId = state.withLock { $0.ids.last }
            let attempt = Result { try SSEClient(port: port, path: path, lastEventId: lastId, source: source) }
            guard case .success(let stream) = attempt, stream.status == 200 else {
                let why = (try? attempt.get()).map { "status \($0.status)" } ?? "no answer"
                state.withLock { if !$0.stopping { $0.failedAttempts.append(why) } }
                // nginx answers 502 while it finds out the instance is gone: try again shortly, as EventSource does.
                Thread.sleep(forTimeInterval: 0.1)
                continue
            }
            let resumed = state.withLock { state -> Bool in
                state.current = stream
                state.connections += 1
                if let endedAt { state.resumeTimes.append(Date().timeIntervalSince(endedAt)) }
                return !state.stopping
            }
            if !resumed { stream.close() }
            var seen = 0
            while true {
                let ended = stream.waitForEnd(timeout: 0.05)
                let events = stream.received
                if events.count > seen {
                    let newIds = events[seen...].compactMap(\.id)
                    seen = events.count
                    state.withLock { $0.ids += newIds }
                }
                if ended { break }
            }
            if stream.received.contains(where: { $0.type == "resync" }) {
                state.withLock { $0.failures.append("told to resync after \(lastId.map(String.init) ?? "nothing")") }
            }
            endedAt = Date()
            if honoursRetry, let retry = stream.retry, !state.withLock({ $0.stopping }) {
                Thread.sleep(forTimeInterval: TimeInterval(retry) / 1000)
            }
        }
    }
}
