import Foundation
import PartyCore

/// R21: whether each party's registered monitor is connected: an open monitor SSE stream, or a
/// heartbeat (device registration, progress report) within the last 15 s.
/// A value type; `PartyService` owns it under its lock.
struct Presence {
    static let heartbeatWindow: TimeInterval = 15

    private var openStreams: [String: Int] = [:]
    private var lastHeartbeat: [String: Date] = [:]
    /// What clients were last told, so `device-changed` is sent only on a change.
    private var announced: [String: Bool] = [:]

    func isActive(partyId: String, at now: Date) -> Bool {
        if openStreams[partyId, default: 0] > 0 { return true }
        guard let beat = lastHeartbeat[partyId] else { return false }
        return now.timeIntervalSince(beat) < Self.heartbeatWindow
    }

    mutating func heartbeat(partyId: String, at now: Date) { lastHeartbeat[partyId] = now }

    mutating func streamOpened(partyId: String) { openStreams[partyId, default: 0] += 1 }

    mutating func streamClosed(partyId: String) {
        openStreams[partyId, default: 0] -= 1
        if openStreams[partyId, default: 0] <= 0 { openStreams[partyId] = nil }
    }

    mutating func forget(partyId: String) {
        openStreams[partyId] = nil
        lastHeartbeat[partyId] = nil
        announced[partyId] = nil
    }

    /// The parties whose state differs from what was announced, with the new state; marks them announced.
    mutating func changes(at now: Date) -> [(partyId: String, active: Bool)] {
        let parties = Set(openStreams.keys).union(lastHeartbeat.keys).union(announced.keys)
        var result: [(String, Bool)] = []
        for partyId in parties.sorted() {
            let active = isActive(partyId: partyId, at: now)
            if announced[partyId, default: false] != active { result.append((partyId, active)) }
            announced[partyId] = active
            if !active, openStreams[partyId] == nil, let beat = lastHeartbeat[partyId],
               now.timeIntervalSince(beat) > Self.heartbeatWindow {
                lastHeartbeat[partyId] = nil
                announced[partyId] = nil
            }
        }
        return result
    }
}
