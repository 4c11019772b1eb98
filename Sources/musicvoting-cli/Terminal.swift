import Foundation

/// The terminal: whole-screen redraws (clear and home), and the typed lines as an async sequence. Text from the
/// server (song names, messages) is never written as it came: an escape sequence in a song name could retitle the
/// window, clear the screen or worse, so control characters are dropped first.
enum Terminal {
    static func draw(_ lines: [String]) {
        let screen = "\u{1B}[2J\u{1B}[H" + lines.map(printable).joined(separator: "\n") + "\n> "
        FileHandle.standardOutput.write(Data(screen.utf8))
    }

    /// One line on standard output (or `to` another handle), without its control characters.
    static func say(_ line: String, to handle: FileHandle = .standardOutput) {
        handle.write(Data((printable(line) + "\n").utf8))
    }

    /// `text` without C0 and C1 control characters and DEL (ESC, BEL, CSI, line ends inside a song name).
    static func printable(_ text: String) -> String {
        String(String.UnicodeScalarView(text.unicodeScalars.filter { $0.properties.generalCategory != .control }))
    }

    /// Encoded JSON with DEL and the C1 controls written as `\u` escapes too (the encoder escapes only C0): the
    /// same JSON value, nothing a terminal acts on. They can only occur inside strings, where the escape is valid.
    static func escapingControls(inJSON json: String) -> String {
        var out = String.UnicodeScalarView()
        for scalar in json.unicodeScalars {
            if (0x7F...0x9F).contains(scalar.value) {
                out.append(contentsOf: String(format: "\\u%04x", scalar.value).unicodeScalars)
            } else {
                out.append(scalar)
            }
        }
        return String(out)
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
