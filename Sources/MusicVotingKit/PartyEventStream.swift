import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One persistent event stream per party (`GET /api/spotify/events?partyId=…&source=ios`), read with a data-task
/// delegate (Linux's URLSession has no `bytes(for:)`), without a request timeout; on Linux over plain HTTP with a
/// socket reader instead (`SocketEventSource`: URLSession there spins a core while a stream is open). When it drops
/// it reconnects after `reconnectDelay` with `Last-Event-ID`, so nothing the server still holds is missed, and
/// every opened connection announces `PartyEvent.connected` so models reload what may have been missed. A
/// connection whose line or event passes the parser's limits (`SSEParser.Overflow`) is closed and reconnected the
/// same way: memory stays bounded whatever the server sends.
public final class PartyEventStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue` (the delegate queue's underlying queue; the socket
    // reader's callbacks enter it with `queue.sync`).
    public let events: AsyncStream<PartyEvent>
    private let continuation: AsyncStream<PartyEvent>.Continuation
    private let url: URL
    private let reconnectDelay: TimeInterval
    private let queue = DispatchQueue(label: "musicvoting.kit.events")
    private var session: URLSession!
    private var task: URLSessionDataTask?
    private var parser = SSEParser()
    private var stopped = false
    #if canImport(FoundationNetworking)
    private var socketReader: SocketEventSource?
    #endif
    /// Set when a connection opens: its first bytes announce `PartyEvent.connected`.
    private var pendingConnectedNotice = false
    /// Connections opened so far (1 after the first; tests watch reconnects).
    public private(set) var connections = 0

    public init(baseURL: URL, partyId: String, installationId: String? = nil, reconnectDelay: TimeInterval = 1) {
        var components = URLComponents(url: baseURL.appendingPathComponent("/api/spotify/events"), resolvingAgainstBaseURL: false)!
        components.queryItems = [URLQueryItem(name: "partyId", value: partyId), URLQueryItem(name: "source", value: "ios")]
            + (installationId.map { [URLQueryItem(name: "installationId", value: $0)] } ?? [])
        url = components.url!
        self.reconnectDelay = reconnectDelay
        (events, continuation) = AsyncStream.makeStream(bufferingPolicy: .bufferingNewest(256))
        super.init()
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        let operations = OperationQueue()
        operations.underlyingQueue = queue
        operations.maxConcurrentOperationCount = 1
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: operations)
    }

    public func start() {
        #if canImport(FoundationNetworking)
        if url.scheme == "http" {
            let reader = SocketEventSource(url: url, reconnectDelay: reconnectDelay,
                                           lastEventId: { self.queue.sync { self.parser.lastEventId } },
                                           onOpen: { _ in self.queue.sync { self.opened() } },
                                           onBytes: { bytes in self.queue.sync { self.received(bytes) } })
            queue.async { self.socketReader = reader }
            reader.start()
            return
        }
        #endif
        queue.async { self.connect() }
    }

    public func stop() {
        queue.async {
            self.stopped = true
            self.task?.cancel()
            #if canImport(FoundationNetworking)
            self.socketReader?.stop()
            #endif
            self.continuation.finish()
            self.session.invalidateAndCancel()
        }
    }

    private func opened() {
        parser = SSEParser(resumingAfter: parser.lastEventId)
        connections += 1
        continuation.yield(PartyEvent(type: PartyEvent.connected, payload: [:]))
    }

    /// False when the connection is to be closed: stopped, or the parser gave up on what the server sent.
    private func received(_ bytes: some Sequence<UInt8>) -> Bool {
        guard !stopped else { return false }
        for event in parser.feed(bytes) { continuation.yield(event) }
        return parser.overflow == nil
    }

    /// The stream's request: no timeout, and `Last-Event-ID` once an event id was seen (one a header can carry).
    static func request(url: URL, lastEventId: String?) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.timeoutInterval = 7 * 24 * 3600
        if let lastEventId, HeaderValue.isSafe(lastEventId) { request.setValue(lastEventId, forHTTPHeaderField: "Last-Event-ID") }
        return request
    }

    private func connect() {
        guard !stopped else { return }
        let request = Self.request(url: url, lastEventId: parser.lastEventId)
        parser = SSEParser(resumingAfter: parser.lastEventId)
        connections += 1
        pendingConnectedNotice = true
        task = session.dataTask(with: request)
        task?.resume()
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        // Bytes still on their way from a connection given up on belong to no parser.
        guard dataTask === task, parser.overflow == nil else { return }
        if pendingConnectedNotice {
            pendingConnectedNotice = false
            continuation.yield(PartyEvent(type: PartyEvent.connected, payload: [:]))
        }
        if !received(data) { dataTask.cancel() }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard !stopped, task === self.task else { return }
        queue.asyncAfter(deadline: .now() + reconnectDelay) { self.connect() }
    }
}
