import Foundation
import HTTPServer

/// A router's answer as a client would read it: status, headers (names lowercased) and the body bytes.
struct Reply {
    var status: Int
    var headers: [String: String]
    var body: [UInt8]
    /// True for an event stream: its headers are here, its events are the end-to-end tests' business.
    var isStream = false

    /// Reads a `Response` value; deferred work runs here (its delay is the socket's business), a file is read.
    init(_ response: Response) throws {
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

    var text: String { String(decoding: body, as: UTF8.self) }
    func header(_ name: String) -> String? { headers[name.lowercased()] }

    /// The body as a JSON object, or nil when it is none.
    var jsonObject: [String: Any]? { (try? JSONSerialization.jsonObject(with: Data(body))) as? [String: Any] }
    /// The body as a JSON object; empty when it is not one, so an absence check must use `answered(_:without:)`.
    var json: [String: Any] { jsonObject ?? [:] }
    var error: String? { json["error"] as? String }
    var code: String? { json["code"] as? String }

    /// SPEC's error shape: this status and a JSON object whose `error` is this message and whose `code` is a string.
    func isError(_ status: Int, _ message: String) -> Bool {
        self.status == status && jsonObject?["error"] as? String == message && jsonObject?["code"] is String
    }

    /// A negative check on status and raw body: `status` with a JSON object that does not hold `key` anywhere.
    func answered(_ status: Int, without key: String) -> Bool {
        self.status == status && jsonObject != nil && jsonObject?[key] == nil && !text.contains("\"\(key)\"")
    }
}

extension Reply: CustomStringConvertible {
    var description: String { "\(status) \(text.prefix(300))" }
}

struct TestFailure: Error, CustomStringConvertible {
    let description: String
}
