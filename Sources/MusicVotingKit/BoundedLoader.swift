import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// How much of an answer the kit takes, and for how long, before it gives up on a request.
public struct ResponseLimits: Equatable, Sendable {
    /// The most body bytes taken; a longer answer fails with `APIError.tooLarge`.
    public var maximumBodyBytes: Int
    /// Seconds from sending the request to the answer's last byte; later fails with `APIError.timedOut`, however
    /// steadily bytes trickle in (the request's own timeout only measures silence).
    public var deadline: TimeInterval

    public init(maximumBodyBytes: Int, deadline: TimeInterval) {
        self.maximumBodyBytes = maximumBodyBytes
        self.deadline = deadline
    }

    /// API answers: 4 MiB (a queue song is about half a KiB, a QR code a few KiB), 20 s.
    public static let api = ResponseLimits(maximumBodyBytes: 4 << 20, deadline: 20)
    /// Cover images: 8 MiB, 30 s (a local library's embedded art can be a large PNG).
    public static let covers = ResponseLimits(maximumBodyBytes: 8 << 20, deadline: 30)
}

/// The kit's ordinary requests (the event stream has its own reader): the body is collected through the session
/// delegate so it can be cut at the cap, a timer ends the request at its deadline, and a request that carries
/// `Authorization` never follows a redirect to another origin. On Linux over plain HTTP a socket reader
/// (`SocketExchange`) answers instead, under the same limits and redirect rule: URLSession there spins a core while
/// an answer is on its way.
///
/// Callbacks, not `data(for:)`: on Linux, cancelling the awaiting task while the answer arrives deadlocks
/// FoundationNetworking. The caller is answered first and the task cancelled afterwards on another queue, so
/// nobody waits on `URLSessionTask.cancel`; a cancelled caller simply gets the answer when it comes. Not a
/// completion handler either: it sees the body only once it is whole. Not a per-task delegate: Linux delivers no
/// data to one.
public final class BoundedLoader: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    // @unchecked: `loads` is guarded by `lock`; `session` is set once in `init`, before any request.
    /// The loader every client and the cover cache use unless given another.
    public static let shared = BoundedLoader()

    private struct Load {
        let continuation: CheckedContinuation<Result<(Data, HTTPURLResponse), APIError>, Never>
        let limits: ResponseLimits
        let origin: Origin?
        let sendsCredentials: Bool
        var body = Data()
    }

    private let lock = NSLock()
    private var loads: [Int: Load] = [:]
    private var session: URLSession!

    /// A loader with its own session. The session holds its delegate, so a loader lives as long as the process:
    /// make one per configuration, not one per request.
    public init(configuration: URLSessionConfiguration = .default) {
        super.init()
        session = URLSession(configuration: configuration, delegate: self, delegateQueue: nil)
    }

    func load(_ request: URLRequest, limits: ResponseLimits) async throws(APIError) -> (Data, HTTPURLResponse) {
        #if canImport(FoundationNetworking)
        if request.url?.scheme?.lowercased() == "http" {
            let origin = Origin(request.url)
            let sendsCredentials = request.value(forHTTPHeaderField: "Authorization") != nil
            let exchange = SocketExchange(limits: limits) { Self.redirect($0, origin: origin, sendsCredentials: sendsCredentials) }
            let started = DispatchTime.now()
            // Its own thread, as the event stream's reader: it sleeps in poll(2), which no cooperative thread may do.
            let outcome = await withCheckedContinuation { continuation in
                Thread.detachNewThread { continuation.resume(returning: exchange.perform(request)) }
            }
            switch outcome {
            case .answered(let data, let response): return (data, response)
            case .failed(let error): throw error
            case .elsewhere(let next):
                let spent = Double(DispatchTime.now().uptimeNanoseconds - started.uptimeNanoseconds) / 1e9
                return try await loadWithSession(next, limits: ResponseLimits(maximumBodyBytes: limits.maximumBodyBytes,
                                                                              deadline: max(0, limits.deadline - spent)))
            }
        }
        #endif
        return try await loadWithSession(request, limits: limits)
    }

    /// Where a redirect may lead: anywhere on the request's own origin; elsewhere a request that
    /// carries `Authorization` (the host PIN) is refused, and any other goes on without that header.
    static func redirect(_ next: URLRequest, origin: Origin?, sendsCredentials: Bool) -> Result<URLRequest, APIError> {
        guard Origin(next.url) != origin else { return .success(next) }
        guard !sendsCredentials else { return .failure(.invalidResponse("refused a redirect to another origin")) }
        var stripped = next
        stripped.setValue(nil, forHTTPHeaderField: "Authorization")
        return .success(stripped)
    }

    private func loadWithSession(_ request: URLRequest, limits: ResponseLimits) async throws(APIError) -> (Data, HTTPURLResponse) {
        let result = await withCheckedContinuation { continuation in
            let task = session.dataTask(with: request)
            let load = Load(continuation: continuation, limits: limits, origin: Origin(request.url),
                            sendsCredentials: request.value(forHTTPHeaderField: "Authorization") != nil)
            lock.lock()
            loads[task.taskIdentifier] = load
            lock.unlock()
            DispatchQueue.global().asyncAfter(deadline: .now() + limits.deadline) { [weak self] in
                self?.finish(task, .failure(.timedOut), cancel: true)
            }
            task.resume()
        }
        return try result.get()
    }

    /// Answers the caller once (later calls for the same task do nothing), then cancels the task if asked.
    private func finish(_ task: URLSessionTask, _ result: Result<(Data, HTTPURLResponse), APIError>, cancel: Bool) {
        lock.lock()
        let load = loads.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        guard let load else { return }
        load.continuation.resume(returning: result)
        if cancel { DispatchQueue.global().async { task.cancel() } }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
                           completionHandler: @escaping (URLSession.ResponseDisposition) -> Void) {
        lock.lock()
        let limit = loads[dataTask.taskIdentifier]?.limits.maximumBodyBytes
        lock.unlock()
        if let limit, response.expectedContentLength > Int64(limit) {
            finish(dataTask, .failure(.tooLarge), cancel: false)
            completionHandler(.cancel)
        } else {
            completionHandler(.allow)
        }
    }

    public func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        lock.lock()
        var tooLarge = false
        if var load = loads[dataTask.taskIdentifier] {
            if load.body.count + data.count > load.limits.maximumBodyBytes {
                tooLarge = true
            } else {
                load.body.append(data)
                loads[dataTask.taskIdentifier] = load
            }
        }
        lock.unlock()
        if tooLarge { finish(dataTask, .failure(.tooLarge), cancel: true) }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, willPerformHTTPRedirection response: HTTPURLResponse,
                           newRequest request: URLRequest, completionHandler: @escaping (URLRequest?) -> Void) {
        lock.lock()
        let load = loads[task.taskIdentifier]
        lock.unlock()
        guard let load else { return completionHandler(request) }
        switch Self.redirect(request, origin: load.origin, sendsCredentials: load.sendsCredentials) {
        case .success(let allowed): completionHandler(allowed)
        case .failure(let error):
            finish(task, .failure(error), cancel: true)
            completionHandler(nil)
        }
    }

    public func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let body = loads[task.taskIdentifier]?.body ?? Data()
        lock.unlock()
        if let error {
            let timedOut = (error as? URLError)?.code == .timedOut
            finish(task, .failure(timedOut ? .timedOut : .network(error.localizedDescription)), cancel: false)
        } else if let response = task.response as? HTTPURLResponse {
            finish(task, .success((body, response)), cancel: false)
        } else {
            finish(task, .failure(.invalidResponse("not HTTP")), cancel: false)
        }
    }
}
