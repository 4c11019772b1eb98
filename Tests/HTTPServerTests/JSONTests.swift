import Foundation
import TestSupport
import Testing
@testable import HTTPServer
@testable import JSONKit

@Suite("JSON parser and serializer")
struct JSONTests {
    @Test func valuesRoundTrip() throws {
        let value: JSON = ["text": "Grüße \"zitat\" \\ \n\t <script> \u{2028}", "number": 42, "fraction": .number(1.5), "negative": -3,
                           "flag": true, "nothing": nil, "list": [1, "two", ["three": false]], "emoji": "🎉"]
        let parsed = try JSON.parse(value.bytes)
        #expect(parsed == value)
        #expect(!value.serialized.contains("<script>") && !value.serialized.contains("\u{2028}"), "safe inside <script> and SSE lines")
    }

    @Test func standardEscapesAndSurrogatePairsParse() throws {
        let parsed = try JSON.parse(Array(#"{"a":"\u00e4\ud83c\udf89\/\b\f\n\r\t","b":[1e3,-0.5,0]}"#.utf8))
        #expect(parsed["a"]?.stringValue == "ä🎉/\u{08}\u{0C}\n\r\t")
        #expect(parsed["b"]?.arrayValue?.compactMap(\.numberValue) == [1000, -0.5, 0])
    }

    @Test func invalidUTF8BecomesReplacementCharactersAroundEscapes() throws {
        // A sequence an escape cuts short and a stray byte each become U+FFFD; the escapes and the rest stay.
        let bytes = Array(#"{"a":""#.utf8) + [0xC3] + Array(#"\u00e4b"#.utf8) + [0xFF] + Array(##"\n\u0041","b":"plain","c":"\""##.utf8) + [0xE2, 0x82, 0xAC] + Array(#""}"#.utf8)
        let parsed = try JSON.parse(bytes)
        #expect(parsed["a"]?.stringValue == "\u{FFFD}äb\u{FFFD}\nA")
        #expect(parsed["b"]?.stringValue == "plain")
        #expect(parsed["c"]?.stringValue == "\"€")
    }

    @Test func headerNamesLoseOnlyTheirASCIICapitals() {
        // The Kelvin sign lowercases to an ASCII "k" in Unicode: a header name must not turn into another one.
        for (name, expected) in [("Content-Type", "content-type"), ("X-FORWARDED-FOR", "x-forwarded-for"), ("Coo\u{212A}ie", "coo\u{212A}ie"),
                                 ("ÄB", "Äb"), ("", "")] {
            #expect(name.withCString { asciiLowercased($0) } == expected)
        }
    }

    @Test func malformedInputIsAnErrorNeverACrash() {
        for text in ["", "{", "[1,]", "{\"a\" 1}", "tru", "nul", "\"unterminated", "\"\\x\"", "\"\\ud800\"", "01x", "+1", "1 2",
                     "{\"a\":1,}", "\u{0}", String(repeating: "[", count: 100_000), "\"a\nb\""] {
            #expect(throws: JSONParseError.self, "\(text.prefix(20))") { try JSON.parse(Array(text.utf8)) }
        }
    }

    @Test func randomAndMutatedBytesNeverCrashTheParser() {
        var random = SplitMix64(state: 2026)
        let seed = Array(#"{"uri":"demo:track:1","deviceId":"abc","list":[1,2.5,true,null,{"x":"\u00fc"}]}"#.utf8)
        for round in 0..<5_000 {
            var bytes = seed
            for _ in 0..<(1 + round % 6) {
                let index = Int.random(in: 0..<bytes.count, using: &random)
                switch Int.random(in: 0..<3, using: &random) {
                case 0: bytes[index] = UInt8.random(in: 0...255, using: &random)
                case 1: bytes.remove(at: index)
                default: bytes.insert(UInt8.random(in: 0...255, using: &random), at: index)
                }
                if bytes.isEmpty { bytes = [0x7B] }
            }
            if let value = try? JSON.parse(bytes) { #expect((try? JSON.parse(value.bytes)) == value, "what parses round-trips") }
        }
        for _ in 0..<2_000 {
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in UInt8.random(in: 0...255, using: &random) }
            _ = try? JSON.parse(bytes)
        }
    }
}

@Suite("Byte ranges")
struct RangeTests {
    @Test func rangesAreParsedAndClamped() {
        #expect(Representation.parseRange("bytes=0-9", length: 100) == 0...9)
        #expect(Representation.parseRange("bytes=90-", length: 100) == 90...99)
        #expect(Representation.parseRange("bytes=-10", length: 100) == 90...99)
        #expect(Representation.parseRange("bytes=50-500", length: 100) == 50...99)
        for bad in ["bytes=100-", "bytes=9-1", "items=0-1", "bytes=-0", "bytes=a-b", "bytes=-"] {
            #expect(Representation.parseRange(bad, length: 100) == nil, "\(bad)")
        }
    }

    /// Bytes and files answer validators the same way (files once ignored a list of tags).
    @Test func bytesAndFilesAgreeOnIfNoneMatchAndRanges() throws {
        let bytes = Array("0123456789".utf8)
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("mv-rep-\(UUID().uuidString)").path
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        let file = FileContent(path: path, contentType: "text/plain")
        let fixed = StaticContent(bytes: bytes, contentType: "text/plain")
        for respond in [{ (request: Request) in fixed.response(to: request) }, { (request: Request) in file.response(to: request)! }] {
            let etag = try #require(respond(Request(method: "GET", path: "/")).headers.first { $0.0 == "ETag" }?.1)
            for header in [etag, "\"other\", \(etag)", "*"] {
                #expect(respond(Request(method: "GET", path: "/", headers: ["if-none-match": header])).status == 304, "\(header)")
            }
            #expect(respond(Request(method: "GET", path: "/", headers: ["if-none-match": "\"other\""])).status == 200)
            #expect(respond(Request(method: "GET", path: "/", headers: ["range": "bytes=2-4"])).status == 206)
            #expect(respond(Request(method: "GET", path: "/", headers: ["range": "bytes=20-"])).status == 416)
        }
    }
}

