/// The metrics one scrape shows, in order; rendered as Prometheus' text exposition format (version 0.0.4).
public struct MetricsRegistry: Sendable {
    public static let contentType = "text/plain; version=0.0.4; charset=utf-8"
    public let families: [any MetricFamily]

    public init(_ families: [any MetricFamily]) { self.families = families }

    public func exposition() -> String {
        var text = ""
        text.reserveCapacity(32 * 1024)
        for family in families { family.render(into: &text) }
        return text
    }
}
