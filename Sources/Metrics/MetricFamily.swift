/// One metric as Prometheus' text format shows it: `# HELP`, `# TYPE` and its samples.
public protocol MetricFamily: Sendable {
    var name: String { get }
    func render(into text: inout String)
}

/// The label values a metric may carry, fixed when it is declared: a sample's labels never come from a request
/// (a raw path, a party id or an address would grow the series without bound and leak them to the scraper).
public struct LabelSet: Sendable {
    public let names: [String]
    /// For each label, the values it may take; a sample's index is their mixed-radix position.
    public let values: [[String]]

    public init(_ labels: KeyValuePairs<String, [String]> = [:]) {
        names = labels.map(\.key)
        values = labels.map(\.value)
    }

    /// How many label combinations (samples) there are.
    public var combinations: Int { values.reduce(1) { $0 * $1.count } }

    /// The index of one combination, nil when a value is not among the declared ones.
    public func index(_ labelValues: String...) -> Int? { index(of: labelValues) }

    public func index(of labelValues: [String]) -> Int? {
        guard labelValues.count == names.count else { return nil }
        var index = 0
        for (position, value) in labelValues.enumerated() {
            guard let offset = values[position].firstIndex(of: value) else { return nil }
            index = index * values[position].count + offset
        }
        return index
    }

    /// `{a="x",b="y"}` for one combination, with `extra` (a histogram's `le`) last; "" without labels.
    func selector(_ index: Int, extra: (String, String)? = nil) -> String {
        var parts: [String] = []
        var remainder = index
        for position in names.indices.reversed() {
            let count = values[position].count
            parts.append("\(names[position])=\"\(Self.escaped(values[position][remainder % count]))\"")
            remainder /= count
        }
        parts.reverse()
        if let extra { parts.append("\(extra.0)=\"\(extra.1)\"") }
        return parts.isEmpty ? "" : "{" + parts.joined(separator: ",") + "}"
    }

    static func escaped(_ value: String) -> String {
        value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }
}

func header(_ text: inout String, name: String, help: String, type: String) {
    text += "# HELP \(name) \(help)\n# TYPE \(name) \(type)\n"
}

func formatted(_ value: Double) -> String {
    if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
    return String(value)
}
