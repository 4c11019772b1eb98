import Foundation
import PartyTestSupport
import Testing

/// HTTP layer: libmicrohttpd's edge cases answer once, with the JSON error shape, and a request head
/// can neither fill the connection's memory nor take forever.
@Suite("Attack: request heads and libmicrohttpd's edges")
struct RequestHeadAttackTests {
    /// Sends raw bytes and reads everything until the server closes.
    static func exchange(_ server: ServerProcess, _ bytes: [UInt8], from source: String = "127.0.0.1") throws -> String {
        let connection = try Connection(port: server.port, source: source)
        try connection.write(bytes)
        return String(decoding: try connection.readToEnd(), as: UTF8.self)
    }

    /// The one answer in `text`: its status and its JSON body; nil when there is not exactly one.
    static func singleAnswer(_ text: String) -> (status: Int, body: [String: Any])? {
        let heads = text.components(separatedBy: "HTTP/1.1 ")
        guard heads.count == 2, let status = Int(heads[1].prefix(3)),
              let body = text.components(separatedBy: "\r\n\r\n").last,
              let json = try? JSONSerialization.jsonObject(with: Data(body.utf8)) as? [String: Any] else { return nil }
        return (status, json)
    }

    @Test func malformedLengthsAndChunkLinesAnswerOnceWithTheErrorShape() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let post = "POST /api/party HTTP/1.1\r\nHost: 127.0.0.1\r\n"
        let cases: [(String, String, Int)] = [
            ("Content-Length: -1", post + "Content-Length: -1\r\n\r\n{}", 400),
            ("Content-Length: 2^64", post + "Content-Length: 18446744073709551616\r\n\r\n{}", 413),
            ("6 KB chunk extension", post + "Transfer-Encoding: chunked\r\n\r\n2;" + String(repeating: "x", count: 6_200) + "\r\n{}\r\n0\r\n\r\n", 413),
        ]
        for (name, request, status) in cases {
            let text = try Self.exchange(server, Array(request.utf8))
            let answer = Self.singleAnswer(text)
            #expect(answer?.status == status, "\(name): \(text.prefix(300))")
            #expect(answer?.body["error"] is String && answer?.body["code"] is String, "\(name): \(text.suffix(120))")
        }
        #expect(try server.client.get("/healthz").status == 200)
    }

    @Test func anUnsatisfiableRangeAnswers416WithTheErrorShape() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let response = try server.client.get("/assets/css/app.css", headers: ["Range": "bytes=99999999-"])
        #expect(response.status == 416)
        #expect(response.header("content-range")?.hasPrefix("bytes */") == true)
        #expect(response.error != nil && response.json["code"] as? String == "range_not_satisfiable", "\(response.text)")
    }

    /// A head of 5.0-5.8 KB fits libmicrohttpd's 6 KiB memory pool but leaves no room there for the response head:
    /// such a request must be refused before the handler runs, never do its work (create a party) unanswered.
    @Test func everyHeadSizeGetsAnAnswerAndNoPartyIsCreatedUnanswered() throws {
        let server = try ServerProcess()
        let body = #"{"provider":"demo"}"#
        var created = 0
        for (index, padding) in stride(from: 3_000, through: 6_200, by: 100).enumerated() {
            let head = "POST /api/party HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nContent-Type: application/json\r\n"
                + "Content-Length: \(body.utf8.count)\r\nX-Pad: \(String(repeating: "p", count: padding))\r\n\r\n"
            let text = try Self.exchange(server, Array((head + body).utf8), from: "127.0.30.\(index + 1)")
            let status = Int(text.dropFirst(9).prefix(3))
            #expect(status == 201 || status == 431, "\(head.utf8.count)-byte head: \(text.prefix(120))")
            if status == 201 { created += 1 }
            if status == 431 { #expect(Self.singleAnswer(text)?.body["code"] as? String == "request_too_big") }
        }
        // The pool (5 KiB: memory per subscriber) holds a head up to the limit and the largest answer head
        // there is, the monitor page's (its Content-Security-Policy): byte by byte up to the limit, a page, then 431.
        var pages = 0
        for padding in stride(from: 3_640, through: 3_780, by: 7) {
            let head = "GET /monitor HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\nAccept-Encoding: gzip\r\n"
                + "X-Pad: \(String(repeating: "p", count: padding))\r\n\r\n"
            let text = try Self.exchange(server, Array(head.utf8), from: "127.0.29.1")
            let status = Int(text.dropFirst(9).prefix(3))
            #expect(status == 200 || status == 431, "\(head.utf8.count)-byte head for the monitor: \(text.prefix(120))")
            if status == 200 { pages += 1 }
        }
        #expect(pages > 0 && pages < 21, "the sweep crosses the limit (\(pages) of 21 answered with the page)")
        // A header-less HTTP/1.0 request line over the limit is refused before any handler runs, too.
        let line = try Self.exchange(server, Array("GET /api/party/\(String(repeating: "a", count: 4_500)) HTTP/1.0\r\n\r\n".utf8))
        #expect(Self.singleAnswer(line)?.status == 431, "\(line.prefix(120))")
        server.stop()
        let logged = server.errorOutput().split(separator: "\n").filter { $0.hasPrefix("access POST /api/party 201") }.count
        #expect(created > 0 && logged == created, "every party created was answered (\(created) answered, \(logged) created)")
    }

    /// A request line of any length, alone or with headers, HTTP/1.1 or 1.0, with or without a query, gets one
    /// answer with the error shape: the routes' under the head limit, 431 over it, 414 when it outgrows the
    /// connection's memory. Lines that filled that memory without outgrowing it left no room for an answer.
    @Test func everyRequestLineLengthGetsOneAnswerWithTheErrorShape() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let variants = [("HTTP/1.1", "Host: 127.0.0.1\r\nConnection: close\r\n"),
                        ("HTTP/1.1", "Host: 127.0.0.1\r\nConnection: close\r\nAccept: */*\r\nUser-Agent: sweep\r\n"),
                        ("HTTP/1.0", ""), ("HTTP/1.0", "User-Agent: sweep\r\n")]
        var unanswered: [String] = []
        var sent = 0
        for length in stride(from: 3_900, through: 6_500, by: 13) {
            for (version, headers) in variants {
                for query in ["", "?a="] {
                    let start = "GET /api/party/" + query
                    let line = start + String(repeating: "a", count: length - start.utf8.count - version.utf8.count - 3) + " \(version)\r\n"
                    sent += 1
                    let connection = try Connection(port: server.port, timeout: 10, source: "127.0.\(40 + sent / 250).\(1 + sent % 250)")
                    try connection.write(Array((line + headers + "\r\n").utf8))
                    let text = (try? connection.readToEnd()).map { String(decoding: $0, as: UTF8.self) } ?? ""
                    let answer = Self.singleAnswer(text)
                    let refused = answer.map { [414, 431].contains($0.status) } ?? false
                    if !(answer?.body["error"] is String && answer?.body["code"] is String) || (line.utf8.count > 4_096 && !refused) {
                        unanswered.append("\(line.utf8.count)-byte \(version) line\(query.isEmpty ? "" : " with a query"), "
                            + "\(headers.split(separator: "\n").count) headers: \(text.isEmpty ? "nothing" : String(text.prefix(40)))")
                    }
                }
            }
        }
        #expect(unanswered.isEmpty, "\(unanswered.count) of \(sent) without one answer with the error shape: \(unanswered.prefix(8))")
        #expect(try server.client.get("/healthz").status == 200)
    }

    /// Each query argument and cookie costs the head a record in the connection's memory too: short lines with
    /// so many of them that the head passes the limit are refused once with 431, never left waiting or answered twice.
    @Test func argumentsAndCookiesPastTheLimitAnswerOnceWith431() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let arguments = String(repeating: "a&", count: 100)
        let cookies = String(repeating: "a=;", count: 150)
        let heads = [
            "GET /healthz?\(arguments) HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n",
            "GET /healthz?\(arguments) HTTP/1.0\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: \(cookies)\r\n\r\n",
            "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nCookie: a=\(String(repeating: "c", count: 3_000))\r\n\r\n",
        ]
        for (index, head) in heads.enumerated() {
            let connection = try Connection(port: server.port, timeout: 5, source: "127.0.32.\(index + 1)")
            try connection.write(Array(head.utf8))
            let text = (try? connection.readToEnd()).map { String(decoding: $0, as: UTF8.self) } ?? ""
            let answer = Self.singleAnswer(text)
            #expect(answer?.status == 431 && answer?.body["code"] as? String == "request_too_big",
                    "\(head.prefix(30))… (\(head.utf8.count) bytes): \(text.isEmpty ? "nothing" : String(text.prefix(120)))")
        }
        #expect(try server.client.get("/healthz").status == 200)
    }

    /// True when the server closed the connection (end of stream or reset), false when the read only timed out.
    static func isClosed(_ connection: Connection) -> Bool {
        do { return try connection.readLine() == nil } catch { return !"\(error)".contains("errno 11") }
    }

    @Test func aTrickledHeadIsCutOffWhileAKeptAliveConnectionWaitsForItsIdleTimeout() throws {
        let server = try ServerProcess()
        defer { server.stop() }
        let kept = try Connection(port: server.port, timeout: 20, source: "127.0.31.2")
        try kept.write(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(try kept.readResponse(method: "GET").status == 200)

        // One byte every 2 s resets libmicrohttpd's 15 s idle timeout forever; the head deadline does not reset.
        let trickle = try Connection(port: server.port, timeout: 2, source: "127.0.31.1")
        let head = Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: aaaaaaaaaaaaaaaaaaaaaaaa\r\n\r\n".utf8)
        var closed = false
        for byte in head.prefix(12) {
            if (try? trickle.write([byte])) == nil || Self.isClosed(trickle) {
                closed = true
                break
            }
        }
        #expect(closed, "a head still trickling after its deadline is closed")

        // The kept-alive connection has waited as long, longer than the head deadline: it still answers.
        try kept.write(Array("GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(try kept.readResponse(method: "GET").status == 200, "keep-alive between requests follows the idle timeout")
    }
}
