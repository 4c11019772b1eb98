import Foundation
import Metrics
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Blocking HTTPS for providers, over URLSession (libcurl on Linux). Callers are background workers
/// (the server defers remote provider calls), never libmicrohttpd's threads.
public struct ProviderHTTP: Sendable {
    public struct Reply: Sendable {
        public let status: Int
        public let headers: [String: String]
        public let body: Data
    }

    let timeout: TimeInterval
    /// The service's label in `ProviderMetrics`.
    let providerIndex: Int

    public init(provider: String = "other", timeout: TimeInterval = 10) {
        self.timeout = timeout
        providerIndex = ProviderMetrics.providerIndex(provider)
    }

    public func send(_ request: URLRequest) throws(ProviderError) -> Reply {
        let started = DispatchTime.now().uptimeNanoseconds
        let outcome: ProviderMetrics.Outcome
        defer {
            ProviderMetrics.duration.observeNanoseconds(since: started, now: DispatchTime.now().uptimeNanoseconds, at: providerIndex)
            ProviderMetrics.calls.add(at: providerIndex * ProviderMetrics.Outcome.allCases.count
                                      + ProviderMetrics.Outcome.allCases.firstIndex(of: outcome)!)
        }
        do {
            let reply = try exchange(request)
            outcome = reply.status < 400 ? .ok : .refused
            return reply
        } catch {
            outcome = .unavailable
            throw error
        }
    }

    private func exchange(_ request: URLRequest) throws(ProviderError) -> Reply {
        var request = request
        request.timeoutInterval = timeout
        let box = ReplyBox()
        let done = DispatchSemaphore(value: 0)
        let task = URLSession.shared.dataTask(with: request) { data, response, error in
            if let response = response as? HTTPURLResponse {
                var headers: [String: String] = [:]
                for (key, value) in response.allHeaderFields {
                    if let key = key as? String, let value = value as? String { headers[key.lowercased()] = value }
                }
                box.reply = Reply(status: response.statusCode, headers: headers, body: data ?? Data())
            }
            done.signal()
        }
        task.resume()
        if done.wait(timeout: .now() + timeout + 1) == .timedOut {
            task.cancel()
            throw .unavailable("Der Musikdienst antwortet nicht.")
        }
        guard let reply = box.reply else { throw .unavailable("Der Musikdienst ist nicht erreichbar.") }
        return reply
    }
}

/// Written by URLSession's callback before it signals the semaphore the caller waits on.
private final class ReplyBox: @unchecked Sendable {
    var reply: ProviderHTTP.Reply?
}

/// Small time-limited caches for remote answers (YouTube's quota is about 100 searches a day).
/// `@unchecked Sendable`: `lock` guards `entries`.
final class ExpiringCache<Value>: @unchecked Sendable {
    private let lock = NSLock()
    private var entries: [String: (value: Value, expires: Date)] = [:]
    let lifetime: TimeInterval
    let capacity: Int

    init(lifetime: TimeInterval, capacity: Int = 500) {
        self.lifetime = lifetime
        self.capacity = capacity
    }

    func value(for key: String, now: Date = Date()) -> Value? {
        lock.lock()
        defer { lock.unlock() }
        guard let entry = entries[key], entry.expires > now else { return nil }
        return entry.value
    }

    func store(_ value: Value, for key: String, now: Date = Date()) {
        lock.lock()
        defer { lock.unlock() }
        if entries.count >= capacity { entries = entries.filter { $0.value.expires > now } }
        if entries.count >= capacity { entries.removeAll() }
        entries[key] = (value, now.addingTimeInterval(lifetime))
    }
}
