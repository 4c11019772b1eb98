import Metrics

/// What the HTTP layer counts itself: the bytes event streams handed to their clients.
public enum HTTPMetrics {
    public static let eventStreamBytes = Counter("musicvoting_event_stream_written_bytes_total",
                                                 help: "Bytes of event streams handed to clients' connections.")
    public static let refusedConnections = Counter("musicvoting_connections_refused_total",
                                                   help: "Connections closed unanswered because their network held its share of the connections.")
}
