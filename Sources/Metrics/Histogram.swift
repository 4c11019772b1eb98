/// A distribution (Prometheus `histogram`) with fixed buckets, one set per label combination. Observations are
/// integers in a unit of the caller's (nanoseconds for durations): an observation is three atomic additions.
public final class Histogram: MetricFamily {
    public let name: String
    public let help: String
    public let labels: LabelSet
    /// Upper bounds as shown (seconds, items), and the same in observed units.
    private let bounds: [Double]
    private let limits: [Int]
    /// What one observed unit is in the shown unit (1e-9: observed nanoseconds, shown seconds).
    private let scale: Double
    /// Per combination: one cell per bucket, one for above the last bound, and the sum (the count is theirs).
    private let cells: AtomicSlots
    private var stride: Int { bounds.count + 2 }

    public init(_ name: String, help: String, labels: LabelSet = LabelSet(), bounds: [Double], scale: Double = 1) {
        self.name = name
        self.help = help
        self.labels = labels
        self.bounds = bounds
        self.scale = scale
        limits = bounds.map { Int(($0 / scale).rounded()) }
        cells = AtomicSlots(count: labels.combinations * (bounds.count + 2))
    }

    /// Seconds buckets from 0.5 ms to 10 s, for request, commit and provider durations.
    public static let durationBounds: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 10]

    public func observe(_ value: Int, at index: Int = 0) {
        let base = index * stride
        var bucket = 0
        while bucket < limits.count, value > limits[bucket] { bucket += 1 }
        cells.add(1, at: base + bucket)
        cells.add(value, at: base + bounds.count + 1)
    }

    /// Observes the nanoseconds since `start` (a `DispatchTime` uptime reading).
    public func observeNanoseconds(since start: UInt64, now: UInt64, at index: Int = 0) {
        observe(Int(truncatingIfNeeded: now &- start), at: index)
    }

    public func count(at index: Int = 0) -> Int { (0...bounds.count).reduce(0) { $0 + cells.value(at: index * stride + $1) } }

    public func render(into text: inout String) {
        header(&text, name: name, help: help, type: "histogram")
        for index in 0..<labels.combinations {
            let base = index * stride
            var cumulative = 0
            for (bucket, bound) in bounds.enumerated() {
                cumulative += cells.value(at: base + bucket)
                text += "\(name)_bucket\(labels.selector(index, extra: ("le", formatted(bound)))) \(cumulative)\n"
            }
            cumulative += cells.value(at: base + bounds.count)
            text += "\(name)_bucket\(labels.selector(index, extra: ("le", "+Inf"))) \(cumulative)\n"
            text += "\(name)_sum\(labels.selector(index)) \(formatted(Double(cells.value(at: base + bounds.count + 1)) * scale))\n"
            text += "\(name)_count\(labels.selector(index)) \(cumulative)\n"
        }
    }
}
