import Foundation
import PartyCore
import Synchronization

/// Line-oriented logging to standard error. Callers never pass PINs or tokens.
/// Off the hot path: a request appends its line to a buffer; a background queue writes the buffer within
/// 50 ms (errors at once), so HTTP threads never wait on a write to the terminal or journal.
public enum Log {
    private static let pending = Mutex<[UInt8]>([])
    private static let writer = DispatchQueue(label: "musicvoting.log")
    private static let flushDelay = DispatchTimeInterval.milliseconds(50)
    private static let maxPending = 1 << 20

    /// Set once at start (`--log-format json`), before the first line.
    private static let json = Atomic(false)

    public static func use(_ format: LogFormat) { json.store(format == .json, ordering: .relaxed) }

    /// Whether lines carry fields (`--log-format json`): only then do callers look up what a field needs.
    public static var writesFields: Bool { json.load(ordering: .relaxed) }

    public static func info(_ message: String) { write("info", message) }
    public static func error(_ message: String) { write("error", message, now: true) }

    /// One line per request: method, route pattern (never the raw path, which can hold a PIN), status, ms.
    /// A method as the client sent it is any token (3 KB with odd spaces reached the log): a log line
    /// names a method only if it is at most 16 capital letters, else "(other)".
    static func loggable(method: String) -> String {
        method.utf8.count <= 16 && !method.isEmpty && method.utf8.allSatisfy({ $0 >= 65 && $0 <= 90 }) ? method : "(other)"
    }

    /// `partyId`: the party the request concerns, a well-formed id the caller read from the path or query (JSON only).
    public static func access(method: String, route: String, status: Int, milliseconds: Double, partyId: String? = nil) {
        let tenths = Int(saturating: (milliseconds * 10).rounded())
        if json.load(ordering: .relaxed) {
            var line = JSONLogLine(level: status >= 500 ? "error" : "info", event: "request")
            line.add("method", loggable(method: method))
            line.add("route", route)
            line.add("status", number: String(status))
            line.add("durationMs", number: String(tenths / 10) + "." + String(tenths % 10))
            if let partyId { line.add("party", partyId) }
            return append(line.line)
        }
        // Put together as bytes (interpolating the line and escaping all of it was a twentieth of a like's
        // HTTP work). The method is capital letters or "(other)", the status and time digits: only the route is escaped.
        var line: [UInt8] = []
        line.reserveCapacity(64 + route.utf8.count)
        line += "access ".utf8
        line += loggable(method: method).utf8
        line.append(UInt8(ascii: " "))
        line += escaped(route).utf8
        line.append(UInt8(ascii: " "))
        line += String(status).utf8
        line.append(UInt8(ascii: " "))
        line += String(tenths / 10).utf8
        line.append(UInt8(ascii: "."))
        line += String(tenths % 10).utf8
        line += "ms\n".utf8
        append(line)
    }

    /// Writes what is buffered (the upkeep timer and shutdown call it too).
    public static func flush() {
        let bytes = pending.withLock { buffer in
            defer { buffer.removeAll(keepingCapacity: true) }
            return buffer
        }
        if !bytes.isEmpty { FileHandle.standardError.write(Data(bytes)) }
    }

    private static func write(_ level: String, _ message: String, now: Bool = false) {
        guard json.load(ordering: .relaxed) else { return append(Array("\(level) \(escaped(message))\n".utf8), now: now) }
        var line = JSONLogLine(level: level, event: event(of: message))
        line.add("message", message)
        append(line.line, now: now)
    }

    /// A message's event name: its lead-in before ": " ("doorbell: cannot listen: …" is `doorbell`) when that is a
    /// short phrase of small letters, else "message".
    static func event(of message: String) -> String {
        guard let colon = message.range(of: ": ") else { return "message" }
        let lead = message[..<colon.lowerBound]
        let plain = lead.utf8.count <= 40 && lead.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || $0 == 32 || $0 == 45 }
        return plain && !lead.isEmpty ? lead.replacingOccurrences(of: " ", with: "_").replacingOccurrences(of: "-", with: "_") : "message"
    }

    private static func append(_ line: [UInt8], now: Bool = false) {
        let (first, full) = pending.withLock { buffer in
            let first = buffer.isEmpty
            buffer += line
            return (first, buffer.count >= maxPending)
        }
        if now || full {
            writer.sync { flush() }
        } else if first {
            writer.asyncAfter(deadline: .now() + flushDelay) { flush() }
        }
    }

    /// One entry is one line: control characters (line breaks, escapes for the terminal) become `\u{…}`,
    /// so nothing a request carries into a message can forge or hide a log line.
    public static func escaped(_ message: String) -> String {
        guard message.unicodeScalars.contains(where: isControl) else { return message }
        var result = ""
        for scalar in message.unicodeScalars {
            if isControl(scalar) { result += "\\u{" + String(scalar.value, radix: 16) + "}" } else { result.unicodeScalars.append(scalar) }
        }
        return result
    }

    private static func isControl(_ scalar: Unicode.Scalar) -> Bool {
        scalar.value < 0x20 || (0x7F...0x9F).contains(scalar.value) || scalar == "\u{2028}" || scalar == "\u{2029}"
    }
}
