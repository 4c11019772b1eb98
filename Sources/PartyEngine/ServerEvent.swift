import Foundation
import JSONKit

/// SPEC "Server-Sent Events": the event types clients know.
enum EventType: String, Sendable {
    case queueUpdated = "queue-updated"
    case voteUpdated = "vote-updated"
    case trackChanged = "track-changed"
    case progress
    case partyEnded = "party-ended"
    case loginSuccess = "login-success"
    case deviceChanged = "device-changed"
    case playbackChanged = "playback-changed"
    /// Ours: the provider refused to play; the host and the monitor show `message`.
    case playbackError = "playback-error"
    /// Ours (R20a): the current song is not heard; `reason` and the frozen `positionMs`.
    case playbackStalled = "playback-stalled"
    /// Ours (R24a): wrong host PINs for this party passed its budget; checks are slowed, the host page says so.
    case pinGuessing = "pin-guessing"
}

/// One event; payload values are strings only, because the existing clients drop any other kind.
struct ServerEvent: Sendable {
    var type: EventType
    var partyId: String
    var source: String = "server"
    var payload: [(String, String)] = []

    /// The SSE frame: `id:` then one `data:` line per line of the JSON message, then a blank line.
    func frame(id: Int, at now: Date) -> [UInt8] {
        let members: [(String, JSON)] = [("partyId", .string(partyId)), ("source", .string(source))]
            + payload.map { ($0.0, .string($0.1)) }
        let message: JSON = ["type": .string(type.rawValue), "timestamp": .integer(Int(now.timeIntervalSince1970 * 1000)),
                             "payload": .object(members)]
        var text = "id: \(id)\n"
        for line in message.serialized.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return Array(text.utf8)
    }
}
