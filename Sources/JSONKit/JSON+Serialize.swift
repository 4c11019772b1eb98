extension JSON {
    /// Compact UTF-8 text; non-ASCII is written as is, control characters escaped.
    public var serialized: String { String(decoding: bytes, as: UTF8.self) }

    public var bytes: [UInt8] {
        var output: [UInt8] = []
        output.reserveCapacity(256)
        write(to: &output)
        return output
    }

    private func write(to output: inout [UInt8]) {
        switch self {
        case .null: output += Self.nullBytes
        case .bool(let flag): output += flag ? Self.trueBytes : Self.falseBytes
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { output += String(Int64(number)).utf8 }
            else if number.isFinite { output += String(number).utf8 }
            else { output += Self.nullBytes }
        case .string(let text): Self.writeString(text, to: &output)
        case .array(let items):
            output.append(UInt8(ascii: "["))
            for (index, item) in items.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                item.write(to: &output)
            }
            output.append(UInt8(ascii: "]"))
        case .object(let members):
            output.append(UInt8(ascii: "{"))
            for (index, (key, value)) in members.enumerated() {
                if index > 0 { output.append(UInt8(ascii: ",")) }
                Self.writeString(key, to: &output)
                output.append(UInt8(ascii: ":"))
                value.write(to: &output)
            }
            output.append(UInt8(ascii: "}"))
        }
    }

    private static let nullBytes = Array("null".utf8)
    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// `text` as a JSON string (quoted and escaped as `serialized` writes it), for callers that write a fixed shape
    /// directly instead of building a value first.
    public static func append(string text: String, to output: inout [UInt8]) { writeString(text, to: &output) }

    private static func writeString(_ text: String, to output: inout [UInt8]) {
        output.append(UInt8(ascii: "\""))
        // Fast path: most strings need no escaping and are copied in one go (scanned as contiguous bytes;
        // the generic UTF8View scan was a tenth of GET queue's time).
        let copied = text.utf8.withContiguousStorageIfAvailable { bytes -> Bool in
            guard !bytes.contains(where: { $0 < 0x20 || $0 == 0x22 || $0 == 0x5C || $0 == 0x3C || $0 == 0xE2 }) else { return false }
            output.append(contentsOf: bytes)
            return true
        } ?? false
        if copied {
            output.append(UInt8(ascii: "\""))
            return
        }
        var utf8 = text.utf8.makeIterator()
        while let byte = utf8.next() {
            // U+2028 and U+2029 (E2 80 A8/A9) break JavaScript string literals: escape them.
            if byte == 0xE2 {
                let second = utf8.next(), third = second == nil ? nil : utf8.next()
                if second == 0x80, let third, third == 0xA8 || third == 0xA9 {
                    output += Array("\\u202".utf8)
                    output.append(third == 0xA8 ? UInt8(ascii: "8") : UInt8(ascii: "9"))
                } else {
                    output.append(byte)
                    if let second { output.append(second) }
                    if let third { output.append(third) }
                }
                continue
            }
            switch byte {
            case UInt8(ascii: "\""): output += [0x5C, 0x22]
            case UInt8(ascii: "\\"): output += [0x5C, 0x5C]
            case 0x0A: output += [0x5C, UInt8(ascii: "n")]
            case 0x0D: output += [0x5C, UInt8(ascii: "r")]
            case 0x09: output += [0x5C, UInt8(ascii: "t")]
            // Escaped so JSON can sit inside a <script> element or an SSE line safely.
            case UInt8(ascii: "<"): output += Array("\\u003c".utf8)
            case 0..<0x20:
                output += [0x5C, UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0"), hexDigits[Int(byte >> 4)], hexDigits[Int(byte & 0xF)]]
            default: output.append(byte)
            }
        }
        output.append(UInt8(ascii: "\""))
    }
}
