import Foundation
import CMicroHTTPD
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// One open Server-Sent-Events response. Writers append bytes; they reach the client one of two ways.
///
/// - Handed over (`adopt`, every stream the server does not encrypt): after its head the socket is the stream's own.
///   `send` queues the bytes and hands the stream to `StreamSockets`' writer threads, which write what it queued with
///   one `send` (events that arrive meanwhile go together); what the kernel does not take waits until the socket is
///   writable. libmicrohttpd is done with the connection, so an idle stream costs neither its memory pool nor a
///   suspend and resume per event, and the thread that publishes (the committer, for a like) only queues.
/// - Through libmicrohttpd (TLS): it pulls the bytes (`read`). Idle streams cost no CPU: when the buffer is empty the
///   reader suspends the connection, and the next `send` resumes it (NOTES-libmicrohttpd: a reader returning 0
///   without suspending spins a core).
///
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
    /// The handed-over socket (-1: none, or libmicrohttpd's), who watches it, and its key there.
    private var socket: Int32 = -1
    private weak var sockets: StreamSockets?
    private var key: UInt64 = 0
    /// Uptime nanoseconds since which queued bytes wait for the socket to take them (0: none wait).
    private var blockedSince: UInt64 = 0
    /// `sockets` was asked to say when the socket takes more.
    private var watching = false
    /// Waits for a writer thread (`StreamSockets.schedule`).
    private var scheduled = false

    public init(capacity: Int = 64 * 1024, initial: [UInt8] = []) {
        self.capacity = capacity
        pending = initial
        initialQueued = initial.count
    }

    /// Bytes queued and not yet written to the client.
    public var pendingByteCount: Int { lock.withLock { _ in pending.count } }

    /// Called once when the stream is over (client left, dropped or closed). Each caller's action runs: the hub and
    /// the monitor presence both need to hear of it.
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
        if socket >= 0 {
            if dropped { return writeLocked() }
            // A socket that took no more is written once it is writable (`socketWritable`).
            if !scheduled && !watching && !finished {
                scheduled = true
                sockets?.schedule(self)
            }
            return
        }
        if suspended, let connection {
            suspended = false
            MHD_resume_connection(connection)
        }
    }

    // MARK: Handed over

    /// The stream takes over `socket` (a descriptor of its own) with `head` (the answer's status line and headers)
    /// before anything queued; `sockets` watches it from now on. The socket is the stream's before `sockets` can see it
    /// end (its end, waiting for this lock, then closes it).
    func adopt(socket: Int32, head: [UInt8], sockets: StreamSockets) {
        lock.withLock { _ in
            self.socket = socket
            self.sockets = sockets
            key = sockets.adopt(socket, for: self)
            pending = head + pending
            initialQueued += head.count
            writeLocked()
        }
    }

    /// Writes what is queued until the kernel takes no more; then asks `sockets` to say when it does. A stream that
    /// is over (closed and written, dropped, or its client gone) shuts its socket down: `sockets` hears of it and ends
    /// the stream on its own thread (the writer may hold locks that the stream's end takes).
    private func writeLocked() {
        guard !finished else { return }
        while !pending.isEmpty, !dropped {
            let written = pending.withUnsafeBytes { Glibc.send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL | MSG_DONTWAIT)) }
            if written > 0 {
                HTTPMetrics.eventStreamBytes.add(written)
                initialQueued = max(0, initialQueued - written)
                // An idle stream keeps no buffer (thousands wait between events: memory per subscriber).
                if written == pending.count { pending = [] } else { pending.removeFirst(written) }
                blockedSince = 0
            } else if written < 0, errno == EINTR {
                continue
            } else if written < 0, errno == EAGAIN || errno == EWOULDBLOCK {
                if blockedSince == 0 { blockedSince = DispatchTime.now().uptimeNanoseconds }
                if !watching {
                    watching = true
                    sockets?.watchWritable(socket, key: key)
                }
                return
            } else {
                dropped = true
            }
        }
        if dropped || closing { shutdown(socket, Int32(SHUT_RDWR)) }
    }

    /// `StreamSockets`' writer thread: writes what is queued.
    func flush() {
        lock.withLock { _ in
            scheduled = false
            writeLocked()
        }
    }

    /// `StreamSockets`: the socket is writable again.
    func socketWritable() {
        lock.withLock { _ in
            watching = false
            writeLocked()
        }
    }

    /// `StreamSockets`: whether queued bytes waited longer than `nanoseconds` for the socket (a client that stopped
    /// reading; its stream is ended).
    func blocked(longerThan nanoseconds: UInt64, now: UInt64) -> Bool {
        lock.withLock { _ in blockedSince != 0 && now - blockedSince > nanoseconds }
    }

    /// `StreamSockets`: the client left or the stream is over; closes the socket and tells whoever waits.
    func socketEnded() {
        let descriptor = lock.withLock { _ in
            defer { socket = -1 }
            return socket
        }
        if descriptor >= 0 { Glibc.close(descriptor) }
        finish()
    }

    // MARK: Through libmicrohttpd

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
            guard !finished else { return [@Sendable () -> Void]() }
            finished = true
            connection = nil
            suspended = false
            pending = []
            defer { onFinish = [] }
            return onFinish
        }
        for action in actions { action() }
    }
}
