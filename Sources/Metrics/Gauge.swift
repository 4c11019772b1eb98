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
