import Metrics

/// Calls to remote music services: how many, how they ended and how long they took, per service.
public enum ProviderMetrics {
    public static let providers = ["spotify", "youtube", "other"]
    public enum Outcome: String, CaseIterable, Sendable {
        /// An answer with a status below 400.
        case ok
        /// An answer with a status of 400 or more (quota, expired login, the service's own failure).
        case refused
        /// No answer: a timeout or a service out of reach.
        case unavailable
    }

    public static let calls = Counter("musicvoting_provider_calls_total", help: "HTTP calls to music services by outcome.",
                                      labels: LabelSet(["provider": providers, "outcome": Outcome.allCases.map(\.rawValue)]))
    public static let duration = Histogram("musicvoting_provider_call_duration_seconds", help: "Time of HTTP calls to music services.",
                                           labels: LabelSet(["provider": providers]), bounds: Histogram.durationBounds, scale: 1e-9)
    public static var families: [any MetricFamily] { [calls, duration] }

    /// The label index of a service's name; names outside the fixed set count as "other".
    static func providerIndex(_ name: String) -> Int { providers.firstIndex(of: name) ?? providers.count - 1 }
}
