/// The data a template renders: JSON-like values.
public enum MustacheValue: Sendable, Equatable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case list([MustacheValue])
    case object([String: MustacheValue])

    /// Mustache falsiness: false, null and the empty list (an empty string is truthy, as in the spec).
    var isFalsey: Bool {
        switch self {
        case .null: return true
        case .bool(let flag): return !flag
        case .list(let items): return items.isEmpty
        default: return false
        }
    }

    var text: String {
        switch self {
        case .null, .list, .object: return ""
        case .bool(let flag): return flag ? "true" : "false"
        case .string(let text): return text
        case .number(let number):
            if number.rounded() == number, abs(number) < 1e15 { return String(Int64(number)) }
            return String(number)
        }
    }

    subscript(key: String) -> MustacheValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }
}

extension MustacheValue: ExpressibleByStringLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral, ExpressibleByIntegerLiteral {
    public init(stringLiteral value: String) { self = .string(value) }
    public init(booleanLiteral value: Bool) { self = .bool(value) }
    public init(integerLiteral value: Int) { self = .number(Double(value)) }
    public init(arrayLiteral elements: MustacheValue...) { self = .list(elements) }
    public init(dictionaryLiteral elements: (String, MustacheValue)...) {
        self = .object(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }
}
