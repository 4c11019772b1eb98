import Foundation
import HTTPServer

/// An answer as a client reads it: status, headers (names lowercased) and the body bytes, from the application in
/// this process or from a socket.
package struct HTTPResponse {
    package var status: Int
    package var headers: [String: String]
    package var body: [UInt8]
    /// True for an event stream answered in process: its headers are here, its events come through `SSEClient`.
    package var isStream = false

    package init(status: Int, headers: [String: String], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// Reads a `Response` value; deferred work runs here (its delay is the socket's business), a file is read.
    package init(_ response: Response) throws {
        var response = response
        if case .deferred(let deferred) = response.body { response = deferred.wait() }
        status = response.status
        headers = Dictionary(response.headers.map { ($0.0.lowercased(), $0.1) }) { _, last in last }
        switch response.body {
        case .bytes(let bytes): body = bytes
        case .stream: body = []; isStream = true
        case .file(let descriptor, let offset, let length):
            defer { close(descriptor) }
            var bytes = [UInt8](repeating: 0, count: Int(length))
            let read = bytes.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, Int(length), off_t(offset)) }
            guard read == Int(length) else { throw TestFailure(description: "short file read: \(read) of \(length)") }
            body = bytes
        case .deferred: throw TestFailure(description: "deferred work answered with more deferred work")
        }
    }

    package var text: String { String(decoding: body, as: UTF8.self) }
    package func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object, or nil when it is none (an HTML page, an empty or truncated body).
    package var jsonObject: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    /// The body as a JSON object; empty when it is not one, so a check that something is absent must use
    /// `answered(_:without:)`, which an error reply cannot pass.
    package var json: [String: Any] { jsonObject ?? [:] }
    package var jsonArray: [Any] { (try? JSONSerialization.jsonObject(with: Data(body))) as? [Any] ?? [] }
    package var error: String? { json["error"] as? String }
    package var code: String? { json["code"] as? String }

    /// SPEC's error shape: this status and a JSON object whose `error` is this message and whose `code` is a string.
    package func isError(_ status: Int, _ message: String) -> Bool {
        self.status == status && jsonObject?["error"] as? String == message && jsonObject?["code"] is String
    }

    /// A negative check on status and raw body: `status` with a JSON object that does not hold `key` anywhere.
    package func answered(_ status: Int, without key: String) -> Bool {
        self.status == status && jsonObject != nil && jsonObject?[key] == nil && !text.contains("\"\(key)\"")
    }
}

extension HTTPResponse: CustomStringConvertible {
    /// Status and raw body, for failure messages.
    package var description: String { "\(status) \(text.prefix(300))" }
}

package struct TestFailure: Error, CustomStringConvertible {
    package let description: String
    package init(description: String) { self.description = description }
}
