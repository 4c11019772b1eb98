import Foundation
import PartyCore

/// A party's player as the whole cluster sees it, merged from every instance's `PresenceRecord`: the
/// monitor streams open anywhere, the newest heartbeat, stream close and audible report. R21's rule
/// (`Presence.isActive`) and R20a's clock read it as they read one instance's own bookkeeping.
struct PlayerView {
    var streams = 0
    var lastHeartbeat: Date?
    var lastStreamClosed: Date?
    var reports = true
    var listening: Listening?

    init(_ records: [PresenceRecord]) {
        streams = records.reduce(0) { $0 + $1.streams }
        lastHeartbeat = records.compactMap(\.lastHeartbeat).max()
        lastStreamClosed = records.compactMap(\.lastStreamClosed).max()
        // The player is what the instance that heard from it last says (a TV, or the original web player).
        reports = records.max { $0.updatedAt < $1.updatedAt }?.reports ?? true
        if let heardAt = records.compactMap(\.heardAt).max(),
           let report = records.max(by: { ($0.reportedAt ?? .distantPast) < ($1.reportedAt ?? .distantPast) }),
           let reportedAt = report.reportedAt {
            listening = Listening(heardAt: heardAt, positionMs: report.positionMs ?? 0, reportedAt: reportedAt)
        }
    }

    func isActive(at now: Date) -> Bool {
        Presence.isActive(lastHeartbeat: lastHeartbeat, lastStreamClosed: lastStreamClosed, monitorStreams: streams, reports: reports, at: now)
    }
}
