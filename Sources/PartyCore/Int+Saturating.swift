/// Numbers from requests, upstream services and the database are hostile: `Int(someDouble)` traps on NaN,
/// infinity and anything past ±9.2e18. These conversions clamp instead.
extension Int {
    /// `value` rounded toward zero and clamped to `Int`'s range; NaN becomes 0.
    public init(saturating value: Double) {
        if value.isNaN {
            self = 0
        } else if value >= Double(Int.max) {
            self = .max
        } else if value <= Double(Int.min) {
            self = .min
        } else {
            self = Int(value)
        }
    }

    /// A decimal number of at most `maxDigits` digits (no sign, no spaces) in `range`, else nil.
    /// For path and query numbers: `Int("-9223372036854775808")` parses, and `number - 1` then traps.
    public init?<S: StringProtocol>(boundedDigits text: S, in range: ClosedRange<Int>, maxDigits: Int = 9) {
        guard !text.isEmpty, text.utf8.count <= maxDigits, text.utf8.allSatisfy({ $0 >= 48 && $0 <= 57 }),
              let value = Int(text), range.contains(value) else { return nil }
        self = value
    }
}
