import Foundation
import Testing
import TestSupport
@testable import MusicVotingKit

/// A hostile server (or one in the middle) must not grow the app's memory without bound, hang a
/// request forever, collect the host PIN on another origin, smuggle bytes into a header or into the terminal.
@Suite("A hostile server")
struct HostileServerTests {
    static let streamHead = "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nCache-Control: no-cache\r\n\r\n"
    static let event = #"data: {"type":"queue-updated","timestamp":1,"payload":{"partyId":"p","source":"ios"}}"# + "\n\n"

    static func json(_ body: String, status: String = "200 OK") -> String {
        "HTTP/1.1 \(status)\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\nConnection: close\r\n\r\n\(body)"
    }

    @Test func anEndlessLineClosesTheStreamAndItReconnects() async throws {
        let server = try HostileServer { connection in
            connection.send(Self.streamHead + "data: ")
            // 1 MiB without a line end (16 times the line limit), then silence with the connection open.
            if !connection.repeatedly(Array(repeating: UInt8(ascii: "x"), count: 16_384), upTo: 1 << 20) { connection.hold() }
        }
        defer { server.stop() }
        let stream = PartyEventStream(baseURL: server.base, partyId: "p", reconnectDelay: 0.2)
        stream.start()
        defer { stream.stop() }
        #expect(await eventually(15) { server.requests.count >= 2 }, "the overlong line closed the stream and it came back")
    }

    @Test func dataLinesWithoutABlankLineCloseTheStreamAndItReconnects() async throws {
        let server = try HostileServer { connection in
            connection.send(Self.streamHead)
            let line = Array(("data: " + String(repeating: "y", count: 1_000) + "\n").utf8)
            if !connection.repeatedly(line, upTo: 1 << 20) { connection.hold() }
        }
        defer { server.stop() }
        let stream = PartyEventStream(baseURL: server.base, partyId: "p", reconnectDelay: 0.2)
        stream.start()
        defer { stream.stop() }
        #expect(await eventually(15) { server.requests.count >= 2 }, "the overlong event closed the stream and it came back")
    }

    @Test func theParserReportsAnOverflowAndDropsWhatItHeld() {
        var line = SSEParser()
        #expect(line.feed(Array(Self.event.utf8)).count == 1)
        for _ in 0..<5 { _ = line.feed(Array(repeating: UInt8(ascii: "x"), count: 16_384)) }
        #expect(line.overflow == .line)
        #expect(line.feed(Array(Self.event.utf8)).isEmpty, "nothing more from a stream that overflowed")

        var event = SSEParser()
        let dataLine = Array(("data: " + String(repeating: "y", count: 1_000) + "\n").utf8)
        for _ in 0..<300 { _ = event.feed(dataLine) }
        #expect(event.overflow == .event)

        var fine = SSEParser()
        let long = "data: " + String(repeating: "z", count: SSEParser.maximumLineBytes - 6) + "\n\n"
        _ = fine.feed(Array(long.utf8))
        #expect(fine.overflow == nil, "a line at the limit is fine")
    }

    @Test func crLfAndCrLfEachEndALineAndIdsThatCannotBeHeadersAreIgnored() {
        var parser = SSEParser()
        let events = parser.feed(Array(("id: 7\rLast-Event-ID: forged\r\n" + Self.event).utf8))
        #expect(events.map(\.id) == ["7"] && parser.lastEventId == "7")
        _ = parser.feed(Array(("id: 8\u{0}9\n" + Self.event).utf8))
        #expect(parser.lastEventId == "7", "SSE: an id holding NUL is ignored")
        _ = parser.feed(Array(("id: 8\u{1B}[2J\n" + Self.event).utf8))
        #expect(parser.lastEventId == "7", "no control characters into Last-Event-ID")
        // A CR at the end of one chunk and the LF at the start of the next are one line end, not an empty line too.
        var split = SSEParser()
        #expect(split.feed(Array("id: 9\r".utf8)).isEmpty)
        #expect(split.feed(Array("\ndata: {\"type\":\"a\"}\r".utf8)).isEmpty)
        #expect(split.feed(Array("\n\r\n".utf8)).map(\.type) == ["a"] && split.lastEventId == "9")
    }

    @Test func aBareCRInAnIdNeverReachesTheLastEventIDHeader() async throws {
        let server = try HostileServer { connection in
            connection.send(Self.streamHead)
            if connection.server.requests.count == 1 {
                connection.send("id: 7\rLast-Event-ID: forged\r\n" + Self.event)
            } else {
                connection.hold()
            }
        }
        defer { server.stop() }
        let stream = PartyEventStream(baseURL: server.base, partyId: "p", reconnectDelay: 0.2)
        stream.start()
        defer { stream.stop() }
        #expect(await eventually(15) { server.requests.count >= 2 })
        let again = try #require(server.requests.dropFirst().first)
        let bytes = Array(again.utf8)
        let bareCR = bytes.indices.contains { bytes[$0] == 13 && (($0 + 1 == bytes.count) || bytes[$0 + 1] != 10) }
        #expect(!bareCR, "no CR outside a CRLF in the reconnect's head")
        let lines = again.components(separatedBy: "\r\n")
        #expect(lines.filter { $0.lowercased().hasPrefix("last-event-id:") } == ["Last-Event-ID: 7"])
    }

    @Test func aTrickledAnswerEndsWithATimeoutWithinTheDeadline() async throws {
        let server = try HostileServer { connection in
            connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: 100000\r\n\r\n{")
            // One byte a quarter second: no idle timeout ever fires.
            for _ in 0..<480 {
                guard connection.send(" ") else { return }
                Thread.sleep(forTimeInterval: 0.25)
            }
        }
        defer { server.stop() }
        let client = MusicVotingClient(baseURL: server.base)
        let outcome = await outcome(within: 300) { () async throws(APIError) in try await client.health() }
        #expect(outcome?.failure == .timedOut, "the default deadline (\(ResponseLimits.api.deadline) s) ended the request")
    }

    @Test func anEndlessBodyIsCutAtTheCap() async throws {
        let server = try HostileServer { connection in
            // No Content-Length: the body ends when the connection does; 16 MiB is four times the cap.
            connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nConnection: close\r\n\r\n[")
            _ = connection.repeatedly(Array(repeating: UInt8(ascii: " "), count: 65_536), upTo: 16 << 20)
        }
        defer { server.stop() }
        let client = MusicVotingClient(baseURL: server.base)
        let outcome = await outcome(within: 300) { () async throws(APIError) in try await client.health() }
        #expect(outcome?.failure == .tooLarge)
    }

    @Test func aDeclaredLengthOverTheCapIsRefusedBeforeTheBody() async throws {
        let server = try HostileServer { connection in
            connection.send("HTTP/1.1 200 OK\r\nContent-Type: application/json\r\nContent-Length: \(16 << 20)\r\n\r\n[")
            connection.hold()
        }
        defer { server.stop() }
        // A long deadline: only the declared length can end this call in time.
        let client = MusicVotingClient(baseURL: server.base, limits: ResponseLimits(maximumBodyBytes: 4 << 20, deadline: 300))
        let outcome = await outcome(within: 300) { () async throws(APIError) in try await client.health() }
        #expect(outcome?.failure == .tooLarge)
    }

    @Test func aRedirectToAnotherOriginNeverCarriesTheHostPin() async throws {
        let elsewhere = try HostileServer { connection in connection.send(Self.json(#"{"words":["stolen"]}"#)) }
        defer { elsewhere.stop() }
        let target = elsewhere.base.absoluteString
        let server = try HostileServer { connection in
            connection.send("HTTP/1.1 307 Temporary Redirect\r\nLocation: \(target)/api/party/p/blacklist\r\nContent-Length: 0\r\n\r\n")
        }
        defer { server.stop() }
        let client = MusicVotingClient(baseURL: server.base, hostPin: "12345")
        let outcome = await outcome(within: 300) { () async throws(APIError) in try await client.blacklist("p") }
        #expect(server.requests.first?.contains("Authorization: Bearer 12345") == true)
        #expect(elsewhere.requests.allSatisfy { !$0.lowercased().contains("authorization") }, "the other origin never saw the PIN")
        #expect(outcome?.failure != nil, "an authenticated call does not follow a redirect to another origin")
    }

    @Test func aRedirectOnTheSameOriginKeepsTheHostPin() async throws {
        let server = try HostileServer { connection in
            if connection.head.hasPrefix("GET /api/party/p/blacklist ") {
                connection.send("HTTP/1.1 307 Temporary Redirect\r\nLocation: /api/party/p/blacklist-moved\r\nContent-Length: 0\r\n\r\n")
            } else if connection.head.contains("Authorization: Bearer 12345") {
                connection.send(Self.json(#"{"words":["kept"]}"#))
            } else {
                connection.send(Self.json(#"{"error":"Host-PIN fehlt."}"#, status: "401 Unauthorized"))
            }
        }
        defer { server.stop() }
        let client = MusicVotingClient(baseURL: server.base, hostPin: "12345")
        let outcome = await outcome(within: 300) { () async throws(APIError) in try await client.blacklist("p") }
        #expect(outcome?.success == ["kept"])
    }

    @Test func theCLIPrintsNoControlCharactersFromTheServer() async throws {
        let evil = #"Evil\u001b]2;pwned\u0007\u001b[2J\u009b31m Song"#
        let track = #"{"id":"t1","uri":"demo:track:1","name":"\#(evil)","artists":[{"name":"A\u001b[5m"}],"#
            + #""album":{"name":"","images":[]},"duration_ms":1000,"likeCount":1,"isCurrentlyPlaying":false,"autofilled":false}"#
        let server = try HostileServer { connection in
            let head = connection.head
            if head.hasPrefix("GET /api/party/join/1234 ") {
                connection.send(Self.json(#"{"id":"p"}"#))
            } else if head.hasPrefix("GET /api/party/p/track/queue") {
                connection.send(Self.json(#"{"queue":[\#(track)]}"#))
            } else {
                connection.send(Self.json(#"{"error":"\u001b[31mNicht gefunden\u001b]0;x\u0007"}"#, status: "404 Not Found"))
            }
        }
        defer { server.stop() }
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mv-cli-\(UUID().uuidString)").path
        func cli(_ arguments: [String]) throws -> String {
            try runToExit(KitServer.built("musicvoting-cli"), ["--server", server.base.absoluteString] + arguments,
                          environment: ["MUSICVOTING_CLI_HOME": home, "LANG": "de_DE.UTF-8"]).output
        }
        let plain = try cli(["queue", "--pin", "1234"])
        #expect(plain.contains("Evil") && plain.contains("Song"))
        let json = try cli(["queue", "--pin", "1234", "--json"])
        #expect(json.contains(#"\u009b"#) || json.contains(#"\u009B"#), "JSON keeps the character, escaped")
        let refused = try cli(["queue", "--pin", "9999"])
        #expect(refused.contains("Nicht gefunden"))
        for output in [plain, json, refused] {
            #expect(!output.unicodeScalars.contains { $0.properties.generalCategory == .control && $0 != "\n" }, "\(output.debugDescription)")
        }
    }
}

/// What `body` ended with, or nil if it had not ended after `seconds` (it then goes on in the background; the
/// servers' `stop` in `defer` ends it). The ceilings are generous (300 s) and no timing claim: in the full suite the
/// synchronous end-to-end tests can hold both cooperative threads for a long stretch (two shared cores), and the
/// loader's own deadline is what ends a hanging request.
func outcome<Value: Sendable>(within seconds: Double, _ body: @escaping @Sendable () async throws(APIError) -> Value) async
    -> Result<Value, APIError>? {
    let box = OutcomeBox<Value>()
    Task {
        let result: Result<Value, APIError>
        do throws(APIError) { result = .success(try await body()) } catch { result = .failure(error) }
        await box.set(result)
    }
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if let result = await box.result { return result }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    return await box.result
}

actor OutcomeBox<Value: Sendable> {
    private(set) var result: Result<Value, APIError>?
    func set(_ result: Result<Value, APIError>) { self.result = result }
}

extension Result {
    var success: Success? { if case .success(let value) = self { return value } else { return nil } }
    var failure: Failure? { if case .failure(let error) = self { return error } else { return nil } }
}
