/// A count that only grows (Prometheus `counter`), one cell per label combination.
public final class Counter: MetricFamily {
    public let name: String
    public let help: String
    public let labels: LabelSet
    private let cells: AtomicSlots

    public init(_ name: String, help: String, labels: LabelSet = LabelSet()) {
        self.name = name
        self.help = help
        self.labels = labels
        cells = AtomicSlots(count: labels.combinations)
    }

    /// Adds to the combination at `index` (from `labels.index`, found once where the label values are known).
    public func add(_ amount: Int = 1, at index: Int = 0) { cells.add(amount, at: index) }

    public func value(at index: Int = 0) -> Int { cells.value(at: index) }

    public func render(into text: inout String) {
        header(&text, name: name, help: help, type: "counter")
        for index in 0..<cells.count { text += "\(name)\(labels.selector(index)) \(cells.value(at: index))\n" }
    }
}

/// A value read when scraped (Prometheus `gauge`): open streams, active parties, memory. Reading it is the
/// scrape's work, so nothing is kept up to date on a request's path.
public final class Gauge: MetricFamily {
    public let name: String
    public let help: String
    public let labels: LabelSet
    private let read: @Sendable () -> [Double]

    /// `read` answers one value per label combination, in `labels` index order.
    public init(_ name: String, help: String, labels: LabelSet = LabelSet(), read: @escaping @Sendable () -> [Double]) {
        self.name = name
        self.help = help
        self.labels = labels
        self.read = read
    }

    public convenience init(_ name: String, help: String, read: @escaping @Sendable () -> Double) {
        self.init(name, help: help, labels: LabelSet()) { [read()] }
    }

    public func render(into text: inout String) {
        header(&text, name: name, help: help, type: "gauge")
        for (index, value) in read().prefix(labels.combinations).enumerated() {
            text += "\(name)\(labels.selector(index)) \(formatted(value))\n"
        }
    }
}
