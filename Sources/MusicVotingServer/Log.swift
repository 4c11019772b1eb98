import Foundation

/// Line-oriented logging to standard error. Callers never pass PINs or tokens.
enum Log {
    private static let lock = NSLock()

    static func info(_ message: String) { write("info", message) }
    static func error(_ message: String) { write("error", message) }

    /// One line per request: method, route pattern (never the raw path, which can hold a PIN), status, ms.
    static func access(method: String, route: String, status: Int, milliseconds: Double) {
        write("access", "\(method) \(route) \(status) \(String(format: "%.1f", milliseconds))ms")
    }

    private static func write(_ level: String, _ message: String) {
        let line = "\(level) \(escaped(message))\n"
        lock.lock()
        FileHandle.standardError.write(Data(line.utf8))
        lock.unlock()
    }

    /// One entry is one line: control characters (line breaks, escapes for the terminal) become `\u{…}`,
    /// so nothing a request carries into a message can forge or hide a log line.
    static func escaped(_ message: String) -> String {
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
