import JSONKit

/// A response value; `Content-Length` and the body always agree because the server derives one from the other.
public struct Response: Sendable {
    public enum Body: Sendable {
        case bytes([UInt8])
        case stream(EventStream)
        /// `length` bytes of the open file `descriptor` from `offset`; libmicrohttpd sends and closes it.
        case file(descriptor: Int32, offset: UInt64, length: UInt64)
        /// Work that may block (a remote provider): the connection is suspended while it runs elsewhere.
        case deferred(DeferredResponse)
    }

    public var status: Int
    public var headers: [(String, String)]
    public var body: Body
    /// The stable code of an error answer (`HTTPError.code`), for counting refusals without reading the body.
    public var errorCode: String?

    public init(status: Int, headers: [(String, String)] = [], body: Body = .bytes([])) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public static func json(_ value: JSON, status: Int = 200) -> Response {
        Response(status: status, headers: [("Content-Type", "application/json; charset=utf-8")], body: .bytes(value.bytes))
    }

    public static func text(_ text: String, status: Int = 200, contentType: String = "text/plain; charset=utf-8") -> Response {
        Response(status: status, headers: [("Content-Type", contentType)], body: .bytes(Array(text.utf8)))
    }

    public static func bytes(_ bytes: [UInt8], contentType: String, status: Int = 200) -> Response {
        Response(status: status, headers: [("Content-Type", contentType)], body: .bytes(bytes))
    }

    public static let noContent = Response(status: 204)

    /// Answers later: `work` runs off libmicrohttpd's threads, which never wait for it (STYLE 6).
    public static func deferred(after delay: Double = 0, _ work: @escaping @Sendable () -> Response) -> Response {
        Response(status: 0, body: .deferred(DeferredResponse(delay: delay, work: work)))
    }

    /// Answered by whoever `start` hands `finish` to, once (after the commit that holds a write). `start`
    /// runs on libmicrohttpd's thread and must not wait for anything: it hands the work on and returns. `finish`
    /// takes how to render the answer, which libmicrohttpd's thread runs after the resume: the committer only
    /// resumes.
    public static func completing(_ start: @escaping @Sendable (_ finish: @escaping @Sendable (@escaping DeferredResponse.Render) -> Void) -> Void) -> Response {
        Response(status: 0, body: .deferred(DeferredResponse(start: start)))
    }

    public static func redirect(to location: String, status: Int = 303) -> Response {
        Response(status: status, headers: [("Location", location)])
    }

    public init(error: HTTPError) {
        var members: [(String, JSON)] = [("error", .string(error.message))]
        if let code = error.code { members.append(("code", .string(code))) }
        members += error.fields
        self = .json(.object(members), status: error.status)
        headers += error.headers
        errorCode = error.code
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.0.lowercased() == name.lowercased() }?.1
    }

    public func adding(header name: String, _ value: String) -> Response {
        var copy = self
        copy.headers.append((name, value))
        return copy
    }
}
