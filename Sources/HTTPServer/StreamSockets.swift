import Foundation
import Synchronization
import CMicroHTTPD
#if canImport(Glibc)
import Glibc
#endif

/// The sockets of the event streams handed over from libmicrohttpd (`EventStream.adopt`). Writer threads (as many as
/// libmicrohttpd's) write the streams that have bytes queued (`schedule`), each stream's queued events with one `send`:
/// a fan-out to thousands of streams is spread over the cores and never holds up the thread that published it. One
/// more thread watches the sockets: it finds clients that left or send anything (the stream ends at once, not at its
/// next write), writes what a full socket left queued once it takes more, and ends streams whose client stopped
/// reading for `stalledAfter`. All of them sleep while nothing happens.
final class StreamSockets: @unchecked Sendable {
    /// A client that reads nothing for this long while bytes wait is gone (libmicrohttpd's stream timeout before).
    let stalledAfter: UInt64
    private let epoll: Int32
    /// Streams by the key their socket is registered with (a number never reused, unlike a descriptor), and the next key.
    private let streams = Mutex<(byKey: [UInt64: (socket: Int32, stream: EventStream)], next: UInt64)>(([:], 1))
    private let stopping = Atomic(false)
    /// Streams with bytes to write, taken by the writers a slice at a time.
    private let ready = Mutex<[EventStream]>([])
    private let wake = DispatchSemaphore(value: 0)
    private let writers: Int
    /// Streams a writer takes at once: small enough that both writers share a fan-out, large enough that the list's
    /// lock is taken rarely.
    private static let slice = 64

    /// The threads hold the object until `stop`; the watcher closes the epoll descriptor when it ends.
    init(stalledAfter seconds: UInt32, writers: Int) {
        stalledAfter = UInt64(seconds) * 1_000_000_000
        self.writers = max(1, writers)
        epoll = epoll_create1(Int32(EPOLL_CLOEXEC))
        precondition(epoll >= 0, "epoll_create1 failed")
        Thread { self.run() }.start()
        for _ in 0..<self.writers { Thread { self.write() }.start() }
    }

    /// Hands `stream` to a writer (it has bytes queued, and was not handed yet).
    func schedule(_ stream: EventStream) {
        let wasEmpty = ready.withLock { ready in
            defer { ready.append(stream) }
            return ready.isEmpty
        }
        if wasEmpty { for _ in 0..<writers { wake.signal() } }
    }

    private func write() {
        try? "mv-stream-write".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        while !stopping.load(ordering: .relaxed) {
            wake.wait()
            while true {
                let taken = ready.withLock { ready -> [EventStream] in
                    let count = min(Self.slice, ready.count)
                    defer { ready.removeLast(count) }
                    return Array(ready.suffix(count))
                }
                if taken.isEmpty { break }
                for stream in taken { stream.flush() }
            }
        }
    }

    /// Open handed-over streams.
    var count: Int { streams.withLock { $0.byKey.count } }

    /// Watches `socket`, now `stream`'s, until the stream ends; then closes it. Returns the key the stream names its
    /// socket by (`watchWritable`).
    func adopt(_ socket: Int32, for stream: EventStream) -> UInt64 {
        let key = streams.withLock { streams in
            defer { streams.next += 1 }
            streams.byKey[streams.next] = (socket, stream)
            return streams.next
        }
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, data: epoll_data_t(u64: key))
        if epoll_ctl(epoll, EPOLL_CTL_ADD, socket, &event) != 0 {
            shutdown(socket, Int32(SHUT_RDWR))
        }
        return key
    }

    /// The stream's socket took no more: says when it does (once).
    func watchWritable(_ socket: Int32, key: UInt64) {
        var event = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue | EPOLLOUT.rawValue, data: epoll_data_t(u64: key))
        _ = epoll_ctl(epoll, EPOLL_CTL_MOD, socket, &event)
    }

    /// Ends every stream, then the thread (the server stops).
    func stop() {
        guard !stopping.load(ordering: .relaxed) else { return }
        for (_, entry) in streams.withLock({ $0.byKey }) { shutdown(entry.socket, Int32(SHUT_RDWR)) }
        let deadline = Date().addingTimeInterval(2)
        while count > 0, Date() < deadline { Thread.sleep(forTimeInterval: 0.005) }
        stopping.store(true, ordering: .relaxed)
        for _ in 0..<writers { wake.signal() }
    }

    private func run() {
        try? "mv-streams".write(toFile: "/proc/thread-self/comm", atomically: false, encoding: .utf8)
        var events = [epoll_event](repeating: epoll_event(), count: 256)
        var scratch = [UInt8](repeating: 0, count: 512)
        var lastSweep = DispatchTime.now().uptimeNanoseconds
        defer {
            for key in streams.withLock({ Array($0.byKey.keys) }) { end(key: key) }
            Glibc.close(epoll)
        }
        while !stopping.load(ordering: .relaxed) {
            let ready = epoll_wait(epoll, &events, Int32(events.count), 250)
            if ready < 0 && errno != EINTR { return }
            for index in 0..<max(0, Int(ready)) {
                let event = events[index]
                guard let entry = streams.withLock({ $0.byKey[event.data.u64] }) else { continue }
                var ended = event.events & (EPOLLHUP.rawValue | EPOLLERR.rawValue | EPOLLRDHUP.rawValue) != 0
                if !ended, event.events & EPOLLIN.rawValue != 0 {
                    // A client sends nothing on an event stream once its request is read: bytes (another request, or
                    // a flood meant to keep this thread reading) end the stream as its end of file does.
                    let count = scratch.withUnsafeMutableBytes { recv(entry.socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
                    ended = count >= 0 || (errno != EAGAIN && errno != EINTR)
                }
                if ended {
                    end(key: event.data.u64)
                } else if event.events & EPOLLOUT.rawValue != 0 {
                    var rearmed = epoll_event(events: EPOLLIN.rawValue | EPOLLRDHUP.rawValue, data: event.data)
                    _ = epoll_ctl(epoll, EPOLL_CTL_MOD, entry.socket, &rearmed)
                    entry.stream.socketWritable()
                }
            }
            let now = DispatchTime.now().uptimeNanoseconds
            if now - lastSweep >= 1_000_000_000 {
                lastSweep = now
                for (key, entry) in streams.withLock({ $0.byKey }) where entry.stream.blocked(longerThan: stalledAfter, now: now) { end(key: key) }
            }
        }
    }

    private func end(key: UInt64) {
        guard let entry = streams.withLock({ $0.byKey.removeValue(forKey: key) }) else { return }
        _ = epoll_ctl(epoll, EPOLL_CTL_DEL, entry.socket, nil)
        entry.stream.socketEnded()
    }
}
