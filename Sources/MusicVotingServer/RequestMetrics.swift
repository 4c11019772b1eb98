import Foundation
import HTTPServer
import Metrics

/// Requests by route pattern and status class, their durations, and refusals by reason. Label values come from
/// the router's patterns and fixed lists, never from the request: a path that matched no route counts as
/// `Router.unmatchedRoute`.
final class RequestMetrics: Sendable {
    /// What the pipeline names requests that reached no route, besides the router's patterns.
    static let pipelineRoutes = [Router.unmatchedRoute, RequestPipeline.unknownHostRoute, RequestPipeline.unreadableForwardedForRoute,
                                 RequestPipeline.metricsRoute]
    static let statusClasses = ["1xx", "2xx", "3xx", "4xx", "5xx"]
    /// The codes of answers that refuse work because a limit is reached or something is overloaded (429, 503).
    static let refusalReasons = ["rate_limited", "too_many_new_guests", "too_many_attempts", "pin_guessing", "pin_checks_exhausted",
                                 "too_many_streams", "too_many_pairings", "too_many_parties", "pins_exhausted", "search_rate_limited",
                                 "provider_busy", "provider_rate_limited", "quota_exceeded", "database_unavailable", "not_ready", "other"]

    let requests: Counter
    let durations: Histogram
    let refusals: Counter
    private let routeIndex: [String: Int]

    init(patterns: [String]) {
        let routes = patterns + Self.pipelineRoutes
        routeIndex = Dictionary(routes.enumerated().map { ($1, $0) }, uniquingKeysWith: { first, _ in first })
        requests = Counter("musicvoting_http_requests_total", help: "HTTP requests answered, by route pattern and status class.",
                           labels: LabelSet(["route": routes, "status_class": Self.statusClasses]))
        durations = Histogram("musicvoting_http_request_duration_seconds",
                              help: "Time from a request's arrival to its answer (after the commit for writes), by route pattern.",
                              labels: LabelSet(["route": routes]), bounds: Histogram.durationBounds, scale: 1e-9)
        refusals = Counter("musicvoting_refusals_total", help: "Requests refused by a limit or for overload (429, 503), by reason.",
                           labels: LabelSet(["reason": Self.refusalReasons]))
    }

    var families: [any MetricFamily] { [requests, durations, refusals] }

    /// One answered request; `route` is a pattern (or a pipeline name), so the lookup always finds it.
    func record(route: String, response: Response, nanoseconds: UInt64) {
        let index = routeIndex[route] ?? routeIndex[Router.unmatchedRoute]!
        let statusClass = min(max(response.status / 100, 1), 5) - 1
        requests.add(at: index * Self.statusClasses.count + statusClass)
        durations.observe(Int(truncatingIfNeeded: nanoseconds), at: index)
        if response.status == 429 || response.status == 503 {
            let reason = response.errorCode.flatMap(Self.refusalReasons.firstIndex(of:)) ?? Self.refusalReasons.count - 1
            refusals.add(at: reason)
        }
    }
}
