import Foundation

/// A response computed on a background queue while its connection is suspended.
/// `@unchecked Sendable`: `result` is written once by the worker before it resumes the connection,
/// and read by the libmicrohttpd thread only after the resume (the resume orders the two).
public final class DeferredResponse: @unchecked Sendable {
    static let workers = DispatchQueue(label: "musicvoting.deferred", attributes: .concurrent)
    /// Suspended connections still waiting for their work; the server drains them before it stops
    /// (NOTES-libmicrohttpd: stopping with suspended connections is undefined behaviour).
    static let inFlight = DispatchGroup()

    public let work: @Sendable () -> Response
    /// Seconds to wait before the work starts (a timer, no thread waits).
    public let delay: TimeInterval
    var result: Response?

    init(delay: TimeInterval = 0, work: @escaping @Sendable () -> Response) {
        self.delay = delay
        self.work = work
    }
}
