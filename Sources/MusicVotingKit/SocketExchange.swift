#if canImport(FoundationNetworking)
import Foundation
import FoundationNetworking

/// Linux only, plain HTTP: one request and its answer over a socket, the calling thread asleep in poll(2) until bytes
/// arrive. URLSession on Linux keeps a core busy for as long as an answer is on its way (96 % of one, measured, for an
/// answer trickling in a byte a second); Apple's does not, so Apple platforms (and HTTPS) keep the session. The
/// limits are the loader's: the body cap, the deadline for the whole call, redirects included, and the request's
/// `timeoutInterval` as the longest silence.
struct SocketExchange: Sendable {
    enum Outcome: Sendable {
        case answered(Data, HTTPURLResponse)
        case failed(APIError)
        /// A redirect, already allowed, to a URL this reader cannot open (HTTPS): the loader's session takes it on.
        case elsewhere(URLRequest)
    }

    static let maximumRedirects = 10

    let limits: ResponseLimits
    /// The loader's redirect rule: the request to send instead, or why the call ends.
    let redirect: @Sendable (URLRequest) -> Result<URLRequest, APIError>
    private let deadline: DispatchTime

    init(limits: ResponseLimits, redirect: @escaping @Sendable (URLRequest) -> Result<URLRequest, APIError>) {
        self.limits = limits
        self.redirect = redirect
        deadline = .now() + limits.deadline
    }

    /// Blocks until the answer is whole, the call failed or its deadline passed.
    func perform(_ request: URLRequest) -> Outcome {
        var current = request
        for _ in 0...Self.maximumRedirects {
            let (status, headers, body): (Int, [String: String], Data)
            switch exchange(current) {
            case .failure(let error): return .failed(error)
            case .success(let answer): (status, headers, body) = answer
            }
            guard let url = current.url else { return .failed(.invalidResponse("no URL")) }
            guard let next = Self.redirected(current, status: status, headers: headers) else {
                guard let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: "HTTP/1.1", headerFields: headers) else {
                    return .failed(.invalidResponse("not HTTP"))
                }
                return .answered(body, response)
            }
            switch redirect(next) {
            case .failure(let error): return .failed(error)
            case .success(let allowed) where allowed.url?.scheme?.lowercased() == "http": current = allowed
            case .success(let allowed): return .elsewhere(allowed)
            }
        }
        return .failed(.invalidResponse("too many redirects"))
    }

    /// The request a redirect answer asks for, as browsers and libcurl make it (303, and a POST moved by 301 or 302,
    /// become a GET without body); nil when the answer is no redirect.
    static func redirected(_ request: URLRequest, status: Int, headers: [String: String]) -> URLRequest? {
        guard [301, 302, 303, 307, 308].contains(status),
              let location = headers.first(where: { $0.key.lowercased() == "location" })?.value,
              let target = URL(string: location, relativeTo: request.url)?.absoluteURL else { return nil }
        var next = request
        next.url = target
        if status == 303 || (status <= 302 && request.httpMethod == "POST") {
            next.httpMethod = "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
        }
        return next
    }

    private var secondsLeft: TimeInterval {
        let now = DispatchTime.now().uptimeNanoseconds
        return deadline.uptimeNanoseconds > now ? Double(deadline.uptimeNanoseconds - now) / 1e9 : 0
    }

    private func exchange(_ request: URLRequest) -> Result<(Int, [String: String], Data), APIError> {
        guard let url = request.url, let host = url.host else { return .failure(.invalidResponse("no host")) }
        guard let head = Self.head(of: request, url: url, host: host) else {
            return .failure(.invalidResponse("a request no header can carry"))
        }
        let silence = request.timeoutInterval > 0 ? request.timeoutInterval : 60
        guard let socket = PlainSocket.connect(host: host, port: url.port ?? 80, timeout: min(silence, secondsLeft)) else {
            return .failure(secondsLeft > 0 ? .network("could not connect to \(host)") : .timedOut)
        }
        defer { close(socket) }
        var sendLimit = timeval(tv_sec: Int(silence.rounded(.up)), tv_usec: 0)
        setsockopt(socket, SOL_SOCKET, SO_SNDTIMEO, &sendLimit, socklen_t(MemoryLayout<timeval>.size))
        let bytes = head + (request.httpBody.map(Array.init) ?? [])
        var offset = 0
        while offset < bytes.count {
            let sent = bytes[offset...].withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            guard sent > 0 else { return .failure(secondsLeft > 0 ? .network("the request could not be sent") : .timedOut) }
            offset += sent
        }
        var parser = AnswerParser(maximumBodyBytes: limits.maximumBodyBytes, bodiless: request.httpMethod == "HEAD")
        var buffer = [UInt8](repeating: 0, count: 16_384)
        while true {
            guard PlainSocket.wait(socket, for: Int16(POLLIN), timeout: min(silence, secondsLeft)) else { return .failure(.timedOut) }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            let progress: AnswerParser.Progress
            if count > 0 {
                progress = parser.feed(Array(buffer[..<count]))
            } else if count == 0 {
                progress = parser.end()
            } else if errno == EINTR || errno == EAGAIN {
                continue
            } else {
                return .failure(.network(String(cString: strerror(errno))))
            }
            switch progress {
            case .needsMore: continue
            case .failed(let error): return .failure(error)
            case let .done(status, headers, body): return .success((status, headers, body))
            }
        }
    }

    /// The request head: the URL's path and query as encoded, its own headers, a length for the body, one request per
    /// connection. A header that could break the head (a CR or LF in it) fails the call instead.
    static func head(of request: URLRequest, url: URL, host: String) -> [UInt8]? {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: true)
        var target = components?.percentEncodedPath ?? ""
        if target.isEmpty { target = "/" }
        if let query = components?.percentEncodedQuery { target += "?" + query }
        let method = request.httpMethod ?? "GET"
        let hostField = (host.contains(":") ? "[\(host)]" : host) + (url.port.map { ":\($0)" } ?? "")
        var lines = ["\(method) \(target) HTTP/1.1", "Host: \(hostField)"]
        for (name, value) in (request.allHTTPHeaderFields ?? [:]).sorted(by: { $0.key < $1.key })
        where !["host", "content-length", "connection"].contains(name.lowercased()) {
            guard HeaderValue.isSafe(name), HeaderValue.isSafe(value) else { return nil }
            lines.append("\(name): \(value)")
        }
        if request.httpBody != nil || ["POST", "PUT", "PATCH"].contains(method) {
            lines.append("Content-Length: \(request.httpBody?.count ?? 0)")
        }
        lines.append("Connection: close")
        guard HeaderValue.isSafe(lines[0]) else { return nil }
        return Array((lines.joined(separator: "\r\n") + "\r\n\r\n").utf8)
    }
}
#endif
