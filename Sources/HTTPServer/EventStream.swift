import Foundation
import CMicroHTTPD
import Synchronization

/// One open Server-Sent-Events response. Writers append bytes; libmicrohttpd pulls them.
///
/// Idle streams cost no CPU: when the buffer is empty the reader suspends the connection, and the
/// next `send` resumes it (NOTES-libmicrohttpd: a reader returning 0 without suspending spins a core).
/// The buffer is bounded: a client that falls this far behind is dropped and reconnects. The stream's first bytes
/// (a resumed stream's replay, bounded by whoever makes them) do not count: they are not a client falling behind,
/// and counting them would drop a long replay before its first byte, again at every reconnect.
/// `@unchecked Sendable`: every field is guarded by `lock`, a `Mutex` kept inside the object (an `NSLock`
/// is four allocations on Linux, for each of thousands of idle subscribers).
public final class EventStream: @unchecked Sendable {
    public let capacity: Int
    private let lock = Mutex(())
    private var pending: [UInt8] = []
    /// How many of the first bytes are still queued (they are exempt from `capacity`).
    private var initialQueued = 0
    private var connection: OpaquePointer?
    private var suspended = false
    private var closing = false
    private var dropped = false
    private var finished = false
    private var onFinish: [@Sendable () -> Void] = []

    public init(capacity: Int = 64 * 1024, initial: [UInt8] = []) {
        self.capacity = capacity
        pending = initial
        initialQueued = initial.count
    }

    /// Bytes queued and not yet written to the client.
    public var pendingByteCount: Int { lock.withLock { _ in pending.count } }

    /// Called once when libmicrohttpd is done with the stream (client left, dropped or closed). Each
    /// caller's action runs: the hub and the monitor presence both need to hear of it.
    public func whenFinished(_ action: @escaping @Sendable () -> Void) {
        let alreadyFinished = lock.withLock { _ in
            if !finished { onFinish.append(action) }
            return finished
        }
        if alreadyFinished { action() }
    }

    /// Queues bytes for the client. Returns false when the stream is over or the client was too slow.
    @discardableResult
    public func send(_ bytes: [UInt8]) -> Bool {
        lock.withLock { _ in sendLocked(bytes) }
    }

    private func sendLocked(_ bytes: [UInt8]) -> Bool {
        guard !closing, !finished else { return false }
        if pending.count - initialQueued + bytes.count > capacity {
            dropped = true
            closing = true
            pending.removeAll()
        } else if pending.isEmpty {
            // The common case, a waiting stream: it shares the frame's bytes (copy-on-write), so one event
            // for thousands of subscribers is encoded once and neither copied nor allocated per subscriber.
            pending = bytes
        } else {
            pending += bytes
        }
        wakeLocked()
        return !dropped
    }

    /// Ends the stream after what is already queued has been written.
    public func close() {
        lock.withLock { _ in
            closing = true
            wakeLocked()
        }
    }

    private func wakeLocked() {
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }

    func attach(_ connection: OpaquePointer) {
        lock.withLock { _ in self.connection = connection }
    }

    /// libmicrohttpd's content reader: copies queued bytes, or suspends until there are some.
    package func read(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        lock.withLock { _ in readLocked(into: buffer, max: max) }
    }

    private func readLocked(into buffer: UnsafeMutablePointer<CChar>, max: Int) -> Int {
        if dropped { return mv_reader_end_with_error() }
        if !pending.isEmpty {
            let count = min(max, pending.count)
            pending.withUnsafeBufferPointer { source in
                UnsafeMutableRawPointer(buffer).copyMemory(from: source.baseAddress!, byteCount: count)
            }
            HTTPMetrics.eventStreamBytes.add(count)
            initialQueued = Swift.max(0, initialQueued - count)
            if count == pending.count {
                // An idle stream keeps no buffer (thousands wait between events: memory per subscriber);
                // the next event's shared bytes become its buffer without an allocation.
                pending = []
            } else {
                pending.removeFirst(count)
            }
            return count
        }
        if closing { return mv_reader_end_of_stream() }
        if let connection {
            suspended = true
            MHD_suspend_connection(connection)
        }
        return 0
    }

    package func finish() {
        let actions = lock.withLock { _ in
            finished = true
            connection = nil
            suspended = false
            defer { onFinish = [] }
            return onFinish
        }
        for action in actions { action() }
    }
}
