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
