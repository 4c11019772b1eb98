#if canImport(FoundationNetworking)
import Foundation
import Testing
@testable import MusicVotingKit

/// The Linux socket reader's framing: what ends an answer, whatever way its bytes are split.
@Suite struct AnswerParserTests {
    static func parse(_ text: String, in pieces: Int, cap: Int = 1_000, ending: Bool = false) -> AnswerParser.Progress {
        var parser = AnswerParser(maximumBodyBytes: cap)
        let bytes = Array(text.utf8)
        let size = max(1, bytes.count / pieces)
        var progress = AnswerParser.Progress.needsMore
        for start in stride(from: 0, to: bytes.count, by: size) {
            progress = parser.feed(Array(bytes[start..<min(bytes.count, start + size)]))
            if progress != .needsMore { return progress }
        }
        return ending ? parser.end() : progress
    }

    static func body(_ progress: AnswerParser.Progress) -> String? {
        if case .done(_, _, let body) = progress { return String(decoding: body, as: UTF8.self) } else { return nil }
    }

    @Test func chunksLengthsAndTheConnectionsEndFrameTheBodyInAnyPieces() {
        let chunked = "HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n4\r\n{\"a\"\r\n3;x=y\r\n:1}\r\n0\r\n\r\n"
        let sized = "HTTP/1.1 404 Not Found\r\nContent-Length: 7\r\n\r\n{\"e\":1}"
        let closed = "HTTP/1.0 200 OK\r\n\r\n[1,2]"
        for pieces in [1, 3, 17, 200] {
            #expect(Self.body(Self.parse(chunked, in: pieces)) == "{\"a\":1}", "\(pieces) pieces")
            #expect(Self.body(Self.parse(sized, in: pieces)) == "{\"e\":1}", "\(pieces) pieces")
            #expect(Self.body(Self.parse(closed, in: pieces, ending: true)) == "[1,2]", "\(pieces) pieces")
        }
        if case .done(let status, let headers, _) = Self.parse(sized, in: 1) {
            #expect(status == 404 && headers["Content-Length"] == "7")
        } else {
            Issue.record("no answer")
        }
        #expect(Self.body(Self.parse("HTTP/1.1 204 No Content\r\nContent-Length: 9\r\n\r\n", in: 1)) == "")
    }

    @Test func oversizedOrCutAnswersFail() {
        #expect(Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 1001\r\n\r\n", in: 1) == .failed(.tooLarge), "declared over the cap")
        #expect(Self.parse("HTTP/1.1 200 OK\r\n\r\n" + String(repeating: "x", count: 1_001), in: 5) == .failed(.tooLarge))
        #expect(Self.parse("HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n3E9\r\n" + String(repeating: "x", count: 1_001), in: 5)
                == .failed(.tooLarge))
        if case .failed(.network) = Self.parse("HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n{}", in: 1, ending: true) {} else {
            Issue.record("a body cut short is no answer")
        }
        if case .failed(.invalidResponse) = Self.parse("SSH-2.0-OpenSSH\r\n\r\n", in: 1) {} else { Issue.record("not HTTP") }
    }
}
#endif
