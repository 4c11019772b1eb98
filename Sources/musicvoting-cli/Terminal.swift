import Foundation

/// The terminal: whole-screen redraws (clear and home), and the typed lines as an async sequence.
enum Terminal {
    static func draw(_ lines: [String]) {
        let screen = "\u{1B}[2J\u{1B}[H" + lines.joined(separator: "\n") + "\n> "
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    /// Lines typed on standard input (read on their own thread: `readLine` blocks).
    static func lines() -> AsyncStream<String> {
        AsyncStream { continuation in
            Thread.detachNewThread {
                while let line = readLine() { continuation.yield(line) }
                continuation.finish()
            }
        }
    }
}
