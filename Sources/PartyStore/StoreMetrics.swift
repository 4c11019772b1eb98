import Metrics

/// Round trips to a shared PostgreSQL database: every statement waits for one, so their count and time are what a
/// cluster's latency is made of.
public enum StoreMetrics {
    public static let postgreSQLRoundTrips = Counter("musicvoting_postgresql_round_trips_total",
                                                     help: "Statements sent to PostgreSQL and answered (or failed).")
    public static let postgreSQLRoundTripDuration = Histogram("musicvoting_postgresql_round_trip_duration_seconds",
                                                              help: "Time from sending a statement to PostgreSQL to its answer.",
                                                              bounds: Histogram.durationBounds, scale: 1e-9)
    public static var families: [any MetricFamily] { [postgreSQLRoundTrips, postgreSQLRoundTripDuration] }
}
