import Foundation
import PartyTestSupport
import Synchronization

/// A crowd of pages, each holding the party's event stream through nginx, all driven by one thread with poll(2) (a
/// thread per stream would take the cores the servers need). Each stream behaves as `ResumingSubscriber`: when it
/// ends it connects again at once with `Last-Event-ID`. Asks in HTTP/1.0, so nginx sends the stream as it comes,
/// without chunks. Each page has a loopback address of its own among a few hundred.
final class StreamCrowd: @unchecked Sendable {
    struct Page {
        var ids: [Int] = []
        var connections = 0
        /// Seconds from a stream's end to the next stream's answer (200).
        var resumeTimes: [TimeInterval] = []
        /// Attempts that got no stream: a status other than 200, or no answer.
        var failedAttempts: [String] = []
        var resyncs = 0
        /// How many ids the page had when each of its streams began.
        var streamStarts: [Int] = []
    }

    private struct Link {
        var descriptor: Int32 = -1
        var buffer: [UInt8] = []
        var streaming = false
        var endedAt: Date?
        var retryAt = Date.distantPast
        /// The event being read: its `id:` and `event:` lines, and whether it has data (one without is not dispatched).
        var eventId: Int?
        var eventType = ""
        var eventHasData = false
    }

    private let pages: Mutex<[Page]>
    private let stopping = Atomic(false)
    private let finished = DispatchSemaphore(value: 0)

    /// `@unchecked Sendable`: the thread and the test share only `pages` (under its lock) and `stopping`.
    init(count: Int, port: UInt16, path: String) {
        pages = Mutex(Array(repeating: Page(), count: count))
        Thread { [self] in run(count: count, port: port, path: path) }.start()
    }

    var snapshot: [Page] { pages.withLock { $0 } }

    /// Closes every stream and waits for the thread.
    func stop() {
        guard !stopping.exchange(true, ordering: .relaxed) else { return }
        finished.wait()
    }

    private static func source(_ index: Int) -> String { "127.62.\(index / 200).\(index % 200 + 1)" }

    private func run(count: Int, port: UInt16, path: String) {
        var links = Array(repeating: Link(), count: count)
        defer {
            for link in links where link.descriptor >= 0 { close(link.descriptor) }
            finished.signal()
        }
        while !stopping.load(ordering: .relaxed) {
            let now = Date()
            for index in links.indices where links[index].descriptor < 0 && links[index].retryAt <= now {
                open(&links[index], index: index, port: port, path: path)
            }
            var polled = links.map { pollfd(fd: $0.descriptor, events: Int16(POLLIN), revents: 0) }
            guard poll(&polled, nfds_t(polled.count), 50) >= 0 else { continue }
            for index in links.indices where polled[index].fd >= 0 && polled[index].revents != 0 {
                read(&links[index], index: index)
            }
        }
    }

    /// Connects (a blocking connect on loopback is immediate) and sends the request; the answer is read by poll.
    private func open(_ link: inout Link, index: Int, port: UInt16, path: String) {
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        var local = sockaddr_in()
        local.sin_family = sa_family_t(AF_INET)
        local.sin_addr.s_addr = inet_addr(Self.source(index))
        var remote = sockaddr_in()
        remote.sin_family = sa_family_t(AF_INET)
        remote.sin_port = port.bigEndian
        remote.sin_addr.s_addr = inet_addr("127.0.0.1")
        let connected = withUnsafePointer(to: local) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0 && withUnsafePointer(to: remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        } == 0
        let lastId = pages.withLock { $0[index].ids.last }
        let request = "GET \(path) HTTP/1.0\r\nHost: 127.0.0.1\r\nAccept: text/event-stream\r\n"
            + (lastId.map { "Last-Event-ID: \($0)\r\n" } ?? "") + "\r\n"
        guard connected, Array(request.utf8).withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }) == request.utf8.count else {
            let reason = String(cString: strerror(errno))
            close(descriptor)
            failed(&link, index: index, why: "no answer: \(reason)")
            return
        }
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        link.descriptor = descriptor
        link.buffer = []
        link.streaming = false
        (link.eventId, link.eventType, link.eventHasData) = (nil, "", false)
    }

    private func failed(_ link: inout Link, index: Int, why: String) {
        if !stopping.load(ordering: .relaxed) { pages.withLock { $0[index].failedAttempts.append(why) } }
        link.retryAt = Date().addingTimeInterval(0.1)
    }

    private func read(_ link: inout Link, index: Int) {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        let count = chunk.withUnsafeMutableBytes { recv(link.descriptor, $0.baseAddress, $0.count, 0) }
        if count < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) { return }
        guard count > 0 else {
            close(link.descriptor)
            link.descriptor = -1
            if link.streaming {
                link.endedAt = Date()
                link.retryAt = .distantPast
            } else {
                failed(&link, index: index, why: count == 0 ? "closed before an answer" : "no answer: \(String(cString: strerror(errno)))")
            }
            return
        }
        link.buffer += chunk[..<count]
        if !link.streaming {
            guard let end = link.buffer.indices.dropLast(3).first(where: { link.buffer[$0...$0 + 3].elementsEqual([13, 10, 13, 10]) }) else { return }
            let head = String(decoding: link.buffer[..<end], as: UTF8.self)
            let status = head.split(separator: " ").dropFirst().first.flatMap { Int($0) } ?? 0
            link.buffer.removeFirst(end + 4)
            guard status == 200 else {
                close(link.descriptor)
                link.descriptor = -1
                failed(&link, index: index, why: "status \(status)")
                return
            }
            link.streaming = true
            let resumed = link.endedAt.map { Date().timeIntervalSince($0) }
            pages.withLock { pages in
                pages[index].connections += 1
                pages[index].streamStarts.append(pages[index].ids.count)
                if let resumed { pages[index].resumeTimes.append(resumed) }
            }
        }
        // Whole lines only; the rest waits for the next read.
        guard let lastNewline = link.buffer.lastIndex(of: 10) else { return }
        let text = String(decoding: link.buffer[...lastNewline], as: UTF8.self)
        link.buffer.removeFirst(lastNewline + 1)
        var ids: [Int] = []
        var resyncs = 0
        // As EventSource dispatches: at a blank line, an event with data; an `id:` alone (the stream's preamble
        // names the last id) only sets what the next reconnect sends.
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).dropLast() {
            let line = line.hasSuffix("\r") ? line.dropLast() : line
            if line.isEmpty {
                if link.eventHasData {
                    if let id = link.eventId { ids.append(id) }
                    if link.eventType == "resync" { resyncs += 1 }
                }
                (link.eventId, link.eventType, link.eventHasData) = (nil, "", false)
            } else if line.hasPrefix("id:") {
                link.eventId = Int(line.dropFirst(3).trimmingCharacters(in: .whitespaces))
            } else if line.hasPrefix("event:") {
                link.eventType = line.dropFirst(6).trimmingCharacters(in: .whitespaces)
            } else if line.hasPrefix("data:") {
                link.eventHasData = true
            }
        }
        if !ids.isEmpty || resyncs > 0 {
            pages.withLock { pages in
                pages[index].ids += ids
                pages[index].resyncs += resyncs
            }
        }
    }
}
