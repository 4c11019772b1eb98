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
        let line = "\(level) \(message)\n"
        lock.lock()
        FileHandle.standardError.write(Data(line.utf8))
        lock.unlock()
    }
}
