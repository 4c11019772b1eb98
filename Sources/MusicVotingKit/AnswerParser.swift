#if canImport(FoundationNetworking)
import Foundation

/// An HTTP/1.1 answer read from bytes as they arrive: a head of at most 64 KiB (informational 1xx heads skipped),
/// then a body framed by chunks, by `Content-Length` or by the end of the connection, never more than
/// `maximumBodyBytes` of it (a declared length over that fails before the body).
struct AnswerParser {
    enum Progress: Equatable {
        case needsMore
        case done(status: Int, headers: [String: String], body: Data)
        case failed(APIError)
    }

    private enum Framing { case none, length(Int), chunked, untilClose }

    let maximumBodyBytes: Int
    /// The answer to a HEAD request has no body whatever its head says.
    let bodiless: Bool
    private var buffer: [UInt8] = []
    private var head: (status: Int, headers: [String: String])?
    private var framing = Framing.untilClose
    private var body = Data()
    private var chunks = ChunkedDecoder()

    init(maximumBodyBytes: Int, bodiless: Bool = false) {
        self.maximumBodyBytes = maximumBodyBytes
        self.bodiless = bodiless
    }

    mutating func feed(_ bytes: [UInt8]) -> Progress {
        guard head != nil else {
            buffer += bytes
            return readHead()
        }
        return readBody(bytes)
    }

    /// The connection ended: whatever was read is the answer only when the body runs to the end of the connection.
    func end() -> Progress {
        guard let head else { return .failed(.network("the server closed the connection without an answer")) }
        guard case .untilClose = framing else { return .failed(.network("the connection closed before the answer was complete")) }
        return .done(status: head.status, headers: head.headers, body: body)
    }

    private mutating func readHead() -> Progress {
        guard let end = buffer.firstRange(of: [13, 10, 13, 10]) else {
            return buffer.count > 65_536 ? .failed(.invalidResponse("an answer head over 64 KiB")) : .needsMore
        }
        let lines = String(decoding: buffer[..<end.lowerBound], as: UTF8.self).components(separatedBy: "\r\n")
        let rest = Array(buffer[end.upperBound...])
        buffer = []
        let statusLine = lines[0].split(separator: " ", maxSplits: 2)
        guard statusLine.count >= 2, statusLine[0].hasPrefix("HTTP/1."), let status = Int(statusLine[1]), (100...999).contains(status) else {
            return .failed(.invalidResponse("not HTTP"))
        }
        if status < 200 && status != 101 { return feed(rest) }
        var headers: [String: String] = [:]
        var names: [String: String] = [:]
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            let name = String(line[..<colon])
            let value = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            let key = names[name.lowercased()] ?? name
            names[name.lowercased()] = key
            headers[key] = headers[key].map { "\($0), \(value)" } ?? value
        }
        head = (status, headers)
        let lookup = { (name: String) in names[name].flatMap { headers[$0] } }
        if bodiless || status == 204 || status == 304 || status < 200 {
            framing = .none
        } else if lookup("transfer-encoding")?.lowercased().contains("chunked") == true {
            framing = .chunked
        } else if let declared = lookup("content-length") {
            guard let length = Int(declared), length >= 0 else { return .failed(.invalidResponse("a Content-Length that is no length")) }
            guard length <= maximumBodyBytes else { return .failed(.tooLarge) }
            framing = .length(length)
        }
        return readBody(rest)
    }

    private mutating func readBody(_ bytes: [UInt8]) -> Progress {
        guard let head else { return .needsMore }
        switch framing {
        case .none:
            return .done(status: head.status, headers: head.headers, body: Data())
        case .length(let length):
            body.append(contentsOf: bytes.prefix(length - body.count))
            if body.count == length { return .done(status: head.status, headers: head.headers, body: body) }
        case .chunked:
            guard let decoded = chunks.feed(bytes) else { return .failed(.invalidResponse("a malformed chunk")) }
            body.append(contentsOf: decoded)
            if body.count > maximumBodyBytes { return .failed(.tooLarge) }
            if chunks.finished { return .done(status: head.status, headers: head.headers, body: body) }
        case .untilClose:
            body.append(contentsOf: bytes)
            if body.count > maximumBodyBytes { return .failed(.tooLarge) }
        }
        return .needsMore
    }
}
#endif
