import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// One persistent event stream per party (`GET /api/spotify/events?partyId=…&source=ios`), read with a data-task
/// delegate on every platform (Linux's URLSession has no `bytes(for:)`), without a request timeout. When it drops
/// it reconnects after `reconnectDelay` with `Last-Event-ID`, so nothing the server still holds is missed.
public final class PartyEventStream: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: every mutable field is touched only on `queue` (the delegate queue's underlying queue).
    public let events: AsyncStream<PartyEvent>
    private let continuation: AsyncStream<PartyEvent>.Continuation
    private let url: URL
    private let reconnectDelay: TimeInterval
    private let queue = DispatchQueue(label: "musicvoting.kit.events")
    private var session: URLSession!
    private var task: URLSessionDataTask?
    private var parser = SSEParser()
    private var stopped = false
    /// Set when a reconnect opens: the first bytes of the new connection announce `PartyEvent.reconnected`.
    private var pendingReconnectNotice = false
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
        let operations = OperationQueue()
        operations.underlyingQueue = queue
        operations.maxConcurrentOperationCount = 1
        let configuration = URLSessionConfiguration.default
        configuration.timeoutIntervalForRequest = 7 * 24 * 3600
        configuration.timeoutIntervalForResource = 7 * 24 * 3600
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: operations)
    }

    public func start() { queue.async { self.connect() } }

    public func stop() {
        queue.async {
            self.stopped = true
            self.task?.cancel()
            self.continuation.finish()
            self.session.invalidateAndCancel()
        }
    }

    /// The stream's request: no timeout, and `Last-Event-ID` once an event id was seen.
    static func request(url: URL, lastEventId: String?) -> URLRequest {
        var request = URLRequest(url: url)
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        request.timeoutInterval = 7 * 24 * 3600
        if let lastEventId { request.setValue(lastEventId, forHTTPHeaderField: "Last-Event-ID") }
        return request
    }

    private func connect() {
        guard !stopped else { return }
        let request = Self.request(url: url, lastEventId: parser.lastEventId)
        parser = SSEParser(resumingAfter: parser.lastEventId)
        connections += 1
        pendingReconnectNotice = connections > 1
        task = session.dataTask(with: request)
        task?.resume()
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        if pendingReconnectNotice {
            pendingReconnectNotice = false
            continuation.yield(PartyEvent(type: PartyEvent.reconnected, payload: [:]))
        }
        for event in parser.feed(data) { continuation.yield(event) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard !stopped else { return }
        queue.asyncAfter(deadline: .now() + reconnectDelay) { self.connect() }
    }
}

extension SSEParser {
    /// A fresh parser for a new connection that still remembers the last id it saw.
    init(resumingAfter lastEventId: String?) {
        self.init()
        if let lastEventId { _ = feed(Array("id: \(lastEventId)\n\n".utf8)) }
    }
}
