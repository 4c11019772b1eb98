/// R3: unguessable ids and tokens, 128 random bits as lowercase hex.
public enum Identifiers {
    public static func token<R: RandomNumberGenerator>(using random: inout R) -> String {
        let high = random.next(), low = random.next()
        return hex(high) + hex(low)
    }

    private static func hex(_ value: UInt64) -> String {
        let digits = String(value, radix: 16)
        return String(repeating: "0", count: 16 - digits.count) + digits
    }

    public static func isWellFormedToken(_ text: String) -> Bool {
        text.utf8.count == 32 && text.utf8.allSatisfy { (48...57).contains($0) || (97...102).contains($0) }
    }

    /// Device ids are client-made (UUIDs in our pages); accept any short printable token.
    public static func isWellFormedDeviceId(_ text: String) -> Bool {
        (1...128).contains(text.utf8.count)
            && text.utf8.allSatisfy { $0 > 32 && $0 < 127 && $0 != UInt8(ascii: "\"") && $0 != UInt8(ascii: "\\") }
    }
}
