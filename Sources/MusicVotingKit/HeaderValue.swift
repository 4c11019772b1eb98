/// What the kit lets into a header it sends when the value came from elsewhere (an event id, a PIN or token the
/// server handed out): printable ASCII and spaces only, so no CR, LF, NUL or other control character can end the
/// header early or add one.
enum HeaderValue {
    static func isSafe(_ value: some Collection<UInt8>) -> Bool { value.allSatisfy { (0x20...0x7E).contains($0) } }
    static func isSafe(_ value: String) -> Bool { isSafe(value.utf8) }
}
