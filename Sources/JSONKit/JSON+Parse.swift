/// A body that is not valid JSON.
public struct JSONParseError: Error, Equatable, Sendable {
    public let offset: Int
}

extension JSON {
    /// Parses UTF-8 JSON (RFC 8259). Nesting is capped so hostile input cannot exhaust the stack.
    public static func parse(_ bytes: [UInt8]) throws(JSONParseError) -> JSON {
        var parser = JSONParser(bytes: bytes)
        let value = try parser.parseValue(depth: 0)
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw JSONParseError(offset: parser.index) }
        return value
    }
}

private struct JSONParser {
    static let maxDepth = 64
    static let numberBytes = Set("+-0123456789.eE".utf8)
    let bytes: [UInt8]
    var index = 0

    init(bytes: [UInt8]) { self.bytes = bytes }

    mutating func skipWhitespace() {
        while index < bytes.count, bytes[index] == 0x20 || bytes[index] == 0x0A || bytes[index] == 0x0D || bytes[index] == 0x09 {
            index += 1
        }
    }

    func failure() -> JSONParseError { JSONParseError(offset: index) }

    mutating func parseValue(depth: Int) throws(JSONParseError) -> JSON {
        guard depth < Self.maxDepth else { throw failure() }
        skipWhitespace()
        guard index < bytes.count else { throw failure() }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try parseObject(depth: depth)
        case UInt8(ascii: "["): return try parseArray(depth: depth)
        case UInt8(ascii: "\""): return .string(try parseString())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        default: return try parseNumber()
        }
    }

    mutating func expect(_ word: String) throws(JSONParseError) {
        for byte in word.utf8 {
            guard index < bytes.count, bytes[index] == byte else { throw failure() }
            index += 1
        }
    }

    mutating func parseObject(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var members: [(String, JSON)] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
        while true {
            skipWhitespace()
            guard index < bytes.count, bytes[index] == UInt8(ascii: "\"") else { throw failure() }
            let key = try parseString()
            skipWhitespace()
            try expect(":")
            members.append((key, try parseValue(depth: depth + 1)))
            skipWhitespace()
            guard index < bytes.count else { throw failure() }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "}") { index += 1; return .object(members) }
            throw failure()
        }
    }

    mutating func parseArray(depth: Int) throws(JSONParseError) -> JSON {
        index += 1
        var items: [JSON] = []
        skipWhitespace()
        if index < bytes.count, bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
        while true {
            items.append(try parseValue(depth: depth + 1))
            skipWhitespace()
            guard index < bytes.count else { throw failure() }
            if bytes[index] == UInt8(ascii: ",") { index += 1; continue }
            if bytes[index] == UInt8(ascii: "]") { index += 1; return .array(items) }
            throw failure()
        }
    }

    mutating func parseNumber() throws(JSONParseError) -> JSON {
        let start = index
        while index < bytes.count, Self.numberBytes.contains(bytes[index]) { index += 1 }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard !text.isEmpty, text.first != "+", let number = Double(text), number.isFinite else { throw failure() }
        return .number(number)
    }

    /// A string's bytes decoded once (appending it scalar by scalar was a third of parsing a like's body).
    /// Invalid UTF-8 becomes U+FFFD as before: an escape's bytes start a new sequence, so a sequence the escape cuts
    /// short is repaired the same way whether decoded with it or alone.
    mutating func parseString() throws(JSONParseError) -> String {
        index += 1
        let start = index
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: bytes[start..<index - 1], as: UTF8.self) }
            if byte < 0x20 { throw failure() }
            if byte == UInt8(ascii: "\\") { index -= 1; break }
        }
        var decoded = Array(bytes[start..<index])
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: "\"") { return String(decoding: decoded, as: UTF8.self) }
            if byte < 0x20 { throw failure() }
            if byte != UInt8(ascii: "\\") { decoded.append(byte); continue }
            guard index < bytes.count else { throw failure() }
            let escape = bytes[index]
            index += 1
            switch escape {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): decoded.append(escape)
            case UInt8(ascii: "b"): decoded.append(0x08)
            case UInt8(ascii: "f"): decoded.append(0x0C)
            case UInt8(ascii: "n"): decoded.append(0x0A)
            case UInt8(ascii: "r"): decoded.append(0x0D)
            case UInt8(ascii: "t"): decoded.append(0x09)
            case UInt8(ascii: "u"):
                var code = try hex4()
                if (0xD800...0xDBFF).contains(code) {
                    try expect("\\u")
                    let low = try hex4()
                    guard (0xDC00...0xDFFF).contains(low) else { throw failure() }
                    code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                }
                guard let scalar = Unicode.Scalar(code) else { throw failure() }
                decoded.append(contentsOf: UTF8.encode(scalar)!)
            default: throw failure()
            }
        }
        throw failure()
    }

    mutating func hex4() throws(JSONParseError) -> UInt32 {
        guard index + 4 <= bytes.count, let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
        else { throw failure() }
        index += 4
        return value
    }
}
