import Metrics
import PartyCore

/// What the party service counts as it works: guests' actions, events, group commits, stalls and the doorbell.
public enum EngineMetrics {
    public static let likes = Counter("musicvoting_likes_total", help: "Likes given (R17), after their commit.")
    public static let adds = Counter("musicvoting_adds_total", help: "Songs added to queues (R10-R13), after their commit.")
    public static let vetoes = Counter("musicvoting_vetoes_total", help: "Vetoes cast (R17a).")
    public static let eventsPublished = Counter("musicvoting_events_published_total",
                                                help: "Events sent to the event streams of this instance's parties.")
    public static let groupCommitBatchSize = Histogram("musicvoting_group_commit_batch_size", help: "Writes committed in one transaction.",
                                                       bounds: [1, 2, 4, 8, 16, 32, 64])
    public static let groupCommitRetries = Counter("musicvoting_group_commit_retries_total",
                                                   help: "Batches run again with a savepoint per write (several instances: a write failed after it wrote).")
    public static let groupCommitDuration = Histogram("musicvoting_group_commit_duration_seconds",
                                                      help: "Time of one group commit, its transaction included.",
                                                      bounds: Histogram.durationBounds, scale: 1e-9)
    static let stallReasons: [StallReason] = [.noMonitor, .autoplayBlocked, .monitorSilent, .providerError]
    public static let stalls = Counter("musicvoting_stalls_total", help: "Times a party's playback stalled (R20a), by reason.",
                                       labels: LabelSet(["reason": stallReasons.map(\.rawValue)]))
    public static let doorbellRings = Counter("musicvoting_doorbell_rings_total",
                                              help: "Doorbells (NOTIFY) of the shared database, sent by this instance or heard from others.",
                                              labels: LabelSet(["direction": ["sent", "heard"]]))
    public static let pollCatchUps = Counter("musicvoting_doorbell_poll_catch_ups_total",
                                             help: "Parties the doorbell's safety-net poll found behind their log.")

    public static let doorbellLogReads = Counter("musicvoting_doorbell_log_reads_total",
                                                 help: "Party logs the doorbell read for this instance's streams: rung without the events, a gap, the poll.")

    public static var families: [any MetricFamily] {
        [likes, adds, vetoes, eventsPublished, groupCommitBatchSize, groupCommitRetries, groupCommitDuration, stalls, doorbellRings, pollCatchUps,
         doorbellLogReads]
    }

    static func stalled(_ reason: StallReason) {
        if let index = stallReasons.firstIndex(of: reason) { stalls.add(at: index) }
    }
}
