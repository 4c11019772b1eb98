/// Where the hub writes one client's event stream: the HTTP layer's streaming response, in the app.
/// The hub alone owns its end: it registers the one finish action and forgets the sink then.
public protocol EventSink: AnyObject, Sendable {
    /// Queues bytes; false when the stream is over or the client fell too far behind (it is then dropped).
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool
    /// Ends the stream after what is already queued.
    func close()
    /// Runs `action` once the stream has ended, for whatever reason.
    func whenFinished(_ action: @escaping @Sendable () -> Void)
    /// Bytes queued and not yet written to the client.
    var pendingByteCount: Int { get }
}

extension EventSink {
    public var pendingByteCount: Int { 0 }
}
