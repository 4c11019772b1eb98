import Foundation

/// How log lines look: `text` for a person at a terminal or in the journal, `json` (one object per line) for a
/// log collector that indexes fields.
public enum LogFormat: String, Sendable {
    case text
    case json
}

/// One JSON log line, put together as bytes: the request path is hot, and Foundation's encoder is not needed for
/// a flat object of strings and numbers.
struct JSONLogLine {
    private(set) var bytes: [UInt8] = []

    init(level: String, event: String, at time: Date = Date()) {
        bytes.reserveCapacity(160)
        bytes += "{\"time\":\"".utf8
        bytes += Self.timestamp(time).utf8
        bytes += "\",\"level\":\"".utf8
        bytes += level.utf8
        bytes += "\"".utf8
        add("event", event)
    }

    mutating func add(_ name: String, _ value: String) {
        bytes += ",\"".utf8
        bytes += name.utf8
        bytes += "\":\"".utf8
        Self.escape(value, into: &bytes)
        bytes += "\"".utf8
    }

    /// A number written as it is (digits, a point, digits): no quotes.
    mutating func add(_ name: String, number: String) {
        bytes += ",\"".utf8
        bytes += name.utf8
        bytes += "\":".utf8
        bytes += number.utf8
    }

    var line: [UInt8] { bytes + "}\n".utf8 }

    /// RFC 3339 in UTC with milliseconds, from gmtime_r (no formatter object to share between threads).
    static func timestamp(_ time: Date) -> String {
        let interval = time.timeIntervalSince1970
        var seconds = time_t(interval.rounded(.down))
        let milliseconds = min(999, Int((interval - Double(seconds)) * 1000))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        let millis = milliseconds < 10 ? "00\(milliseconds)" : milliseconds < 100 ? "0\(milliseconds)" : "\(milliseconds)"
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec)).\(millis)Z"
    }

    /// JSON string escaping: quotes, backslashes and every control character, so one entry stays one line.
    static func escape(_ text: String, into bytes: inout [UInt8]) {
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): bytes += "\\\"".utf8
            case UInt8(ascii: "\\"): bytes += "\\\\".utf8
            case UInt8(ascii: "\n"): bytes += "\\n".utf8
            case UInt8(ascii: "\r"): bytes += "\\r".utf8
            case UInt8(ascii: "\t"): bytes += "\\t".utf8
            case 0..<0x20, 0x7F:
                let hex = String(byte, radix: 16)
                bytes += ("\\u00" + (hex.count == 1 ? "0" : "") + hex).utf8
            default: bytes.append(byte)
            }
        }
    }
}
