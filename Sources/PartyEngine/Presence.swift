import Foundation
import PartyCore

/// R21: whether each party's registered monitor is connected: an open monitor SSE stream (the event hub
/// counts those), or a heartbeat (device registration, progress report) within the last 15 s. When the last
/// monitor stream closes, the heartbeats before it no longer count: a TV that was closed or left for the
/// back/forward cache is gone at once (R20a: `no-monitor`), while an older player that only reports progress
/// keeps counting by its heartbeats.
/// A value type; `PartyState` owns it.
///
/// A TV that dies without closing its connection (power cut, network switch) keeps its stream "open"
/// for minutes. A monitor that proved its token therefore counts only while it also reports: every second (idle
/// too), and at least once in `monitorDeadline`, so the host reads "no TV" within 10 s whatever the way it died.
struct Presence {
    static let heartbeatWindow: TimeInterval = 15
    static let monitorDeadline: TimeInterval = 8

    private var lastHeartbeat: [String: Date] = [:]
    private var lastStreamClosed: [String: Date] = [:]
    /// What clients were last told, so `device-changed` is sent only on a change.
    private var announced: [String: Bool] = [:]

    /// `reports`: the party's player is a TV with a monitor token, which reports every second.
    func isActive(partyId: String, at now: Date, monitorStreams: Int, reports: Bool) -> Bool {
        Self.isActive(lastHeartbeat: lastHeartbeat[partyId], lastStreamClosed: lastStreamClosed[partyId], monitorStreams: monitorStreams,
                      reports: reports, at: now)
    }

    /// The rule above, for one instance's record or the records of several merged (`PlayerView`).
    static func isActive(lastHeartbeat: Date?, lastStreamClosed: Date?, monitorStreams: Int, reports: Bool, at now: Date) -> Bool {
        if monitorStreams > 0 {
            guard reports else { return true }
            return lastHeartbeat.map { now.timeIntervalSince($0) < monitorDeadline } ?? false
        }
        guard let beat = lastHeartbeat else { return false }
        if let closed = lastStreamClosed, closed >= beat { return false }
        return now.timeIntervalSince(beat) < heartbeatWindow
    }

    /// This instance's heartbeat and stream-closed times of the party's player (what it shares).
    func times(partyId: String) -> (lastHeartbeat: Date?, lastStreamClosed: Date?) { (lastHeartbeat[partyId], lastStreamClosed[partyId]) }

    mutating func heartbeat(partyId: String, at now: Date) { lastHeartbeat[partyId] = now }

    /// The party's last monitor stream closed.
    mutating func streamsClosed(partyId: String, at now: Date) { lastStreamClosed[partyId] = now }

    mutating func forget(partyId: String) {
        lastHeartbeat[partyId] = nil
        lastStreamClosed[partyId] = nil
        announced[partyId] = nil
    }

    /// The parties whose state differs from what was announced, with the new state; marks them announced.
    /// `also` names parties with open monitor streams that may never have sent a heartbeat.
    mutating func changes(at now: Date, monitorStreams: (String) -> Int, reports: (String) -> Bool,
                          also: [String] = []) -> [(partyId: String, active: Bool)] {
        let parties = Set(also).union(lastHeartbeat.keys).union(announced.keys)
        var result: [(String, Bool)] = []
        for partyId in parties.sorted() {
            let streams = monitorStreams(partyId)
            let active = isActive(partyId: partyId, at: now, monitorStreams: streams, reports: reports(partyId))
            if announced[partyId, default: false] != active { result.append((partyId, active)) }
            announced[partyId] = active
            if !active, streams == 0, let beat = lastHeartbeat[partyId],
               now.timeIntervalSince(beat) > Self.heartbeatWindow {
                lastHeartbeat[partyId] = nil
                lastStreamClosed[partyId] = nil
                announced[partyId] = nil
            }
        }
        return result
    }
}
