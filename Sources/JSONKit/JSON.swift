import Foundation

/// A JSON value with an exact parser and a deterministic serializer (keys keep insertion order).
public enum JSON: Equatable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSON])
    case object([(String, JSON)])

    public static func == (left: JSON, right: JSON) -> Bool {
        switch (left, right) {
        case (.null, .null): return true
        case let (.bool(a), .bool(b)): return a == b
        case let (.number(a), .number(b)): return a == b
        case let (.string(a), .string(b)): return a == b
        case let (.array(a), .array(b)): return a == b
        case let (.object(a), .object(b)): return a.count == b.count && zip(a, b).allSatisfy { $0.0 == $1.0 && $0.1 == $1.1 }
        default: return false
        }
    }

    public subscript(key: String) -> JSON? {
        if case .object(let members) = self { return members.first { $0.0 == key }?.1 }
        return nil
    }

    public var stringValue: String? { if case .string(let text) = self { return text } else { return nil } }
    public var boolValue: Bool? { if case .bool(let flag) = self { return flag } else { return nil } }
    public var numberValue: Double? { if case .number(let number) = self { return number } else { return nil } }
    public var arrayValue: [JSON]? { if case .array(let items) = self { return items } else { return nil } }

    public static func integer(_ value: Int) -> JSON { .number(Double(value)) }
    public static func optional(_ text: String?) -> JSON { text.map(JSON.string) ?? .null }
}

extension JSON: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral, ExpressibleByNilLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: JSON...) { self = .array(elements) }
    public init(dictionaryLiteral elements: (String, JSON)...) { self = .object(elements) }
    public init(nilLiteral: ()) { self = .null }
}
