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
    var result: Response?

    init(work: @escaping @Sendable () -> Response) { self.work = work }
}
