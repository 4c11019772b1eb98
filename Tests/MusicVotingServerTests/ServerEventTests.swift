import Foundation
import JSONKit
import Testing
@testable import PartyEngine

/// An event's message is written directly; it must be the very bytes the JSON value would serialize to
/// (the shape SPEC gives clients, and what the log keeps), escapes included.
@Suite("Server event messages")
struct ServerEventTests {
    @Test(arguments: [
        [("partyId", "p1"), ("source", "server"), ("uri", "demo:track:1"), ("likeCount", "3"), ("order", "4,2,9")],
        [],
        [("name", "Quote \" backslash \\ line\nbreak <script> \u{2028} tab\t ü 🎉"), ("empty", "")],
    ] as [[(String, String)]])
    func aMessageIsWhatItsJSONValueSerializesTo(_ payload: [(String, String)]) {
        let at = Date(timeIntervalSince1970: 1_796_470_252.883)
        let value: JSON = ["type": .string("vote-updated"), "timestamp": .integer(Int(at.timeIntervalSince1970 * 1000)),
                           "payload": .object(payload.map { ($0.0, .string($0.1)) })]
        #expect(ServerEvent.message(type: "vote-updated", at: at, payload: payload) == value.serialized)
    }

    @Test func anOrderIsItsIdsSeparatedByCommas() {
        for ids: [Int64] in [[], [0], [7, 10, 99, 100, 123_456_789_012], [-5, Int64.max, Int64.min, 1]] {
            #expect(EventKind.list(ids) == ids.map(String.init).joined(separator: ","))
        }
    }
}
