import Foundation

/// A response computed while its connection is suspended: by work on a background queue, or by whoever `start`
/// hands its `finish` to (the group commit answers a write once the transaction holding it committed).
/// `@unchecked Sendable`: `result` is written once, by `finish`, before the connection resumes, and read by the
/// libmicrohttpd thread only after the resume (the resume orders the two).
public final class DeferredResponse: @unchecked Sendable {
    static let workers = DispatchQueue(label: "musicvoting.deferred", attributes: .concurrent)
    /// Suspended connections still waiting for their work; the server drains them before it stops
    /// (NOTES-libmicrohttpd: stopping with suspended connections is undefined behaviour).
    static let inFlight = DispatchGroup()

    /// How to render the answer once it is known: run by libmicrohttpd's thread after the resume, so whoever
    /// finishes (the group commit's one committer) only resumes (building the JSON and the access log's
    /// line was a fifth of the committer's time per like).
    public typealias Render = @Sendable () -> Response
    /// Begins the work; it calls `finish` exactly once, on any thread, when the answer is known.
    public let start: @Sendable (_ finish: @escaping @Sendable (@escaping Render) -> Void) -> Void
    /// Seconds to wait before the work starts (a timer, no thread waits).
    public let delay: TimeInterval
    /// `start` only hands the work on and returns at once (a group commit's submit): libmicrohttpd's thread calls
    /// it itself instead of waking a worker thread to call it (one thread switch less per like).
    let handsOn: Bool
    var result: Render?

    init(delay: TimeInterval = 0, work: @escaping @Sendable () -> Response) {
        self.delay = delay
        handsOn = false
        start = { finish in
            let response = work()
            finish { response }
        }
    }

    init(start: @escaping @Sendable (_ finish: @escaping @Sendable (@escaping Render) -> Void) -> Void) {
        delay = 0
        handsOn = true
        self.start = start
    }

    private init(delay: TimeInterval, handsOn: Bool, start: @escaping @Sendable (_ finish: @escaping @Sendable (@escaping Render) -> Void) -> Void) {
        self.delay = delay
        self.handsOn = handsOn
        self.start = start
    }

    /// The same work, its answer passed through `transform` (the access log's line once it is known).
    public func map(_ transform: @escaping @Sendable (Response) -> Response) -> Response {
        let start = self.start
        return Response(status: 0, body: .deferred(DeferredResponse(delay: delay, handsOn: handsOn) { finish in
            start { render in finish { transform(render()) } }
        }))
    }

    /// The answer, waited for on this thread (a caller without a connection to suspend: tests in process).
    public func wait() -> Response {
        let done = DispatchSemaphore(value: 0)
        let answer = Answer()
        start { render in
            answer.render = render
            done.signal()
        }
        done.wait()
        return answer.render?() ?? Response(error: HTTPError(status: 500, message: "Interner Fehler."))
    }

    /// `@unchecked Sendable`: written before the semaphore is signalled, read after it was waited for.
    private final class Answer: @unchecked Sendable {
        var render: Render?
    }
}
