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
/// Who a stream is for (its `source` and, for the iOS app, its `installationId`), and so which scoped events reach it.
public struct Audience: Sendable, Equatable {
    public var source: String
    public var installationId: String?

    public init(source: String, installationId: String? = nil) {
        self.source = source
        self.installationId = installationId
    }

    /// SPEC: a web `login-success` reaches web streams only; an iOS one only iOS streams of its installation.
    func admits(_ stream: Audience) -> Bool {
        stream.source == source && (source != "ios" || stream.installationId == installationId)
    }
}

struct ServerEvent: Sendable {
    var type: EventType
    var partyId: String
    var source: String = "server"
    var payload: [(String, String)] = []
    /// Only streams this audience admits get the event (nil: every stream of the party).
    var audience: Audience? = nil
    /// The `partyId` the payload names when the event travels on another channel (an installation's stream).
    var displayedPartyId: String? = nil

    /// The SSE frame: `id:` then one `data:` line per line of the JSON message, then a blank line.
    func frame(id: Int, at now: Date) -> [UInt8] {
        let members: [(String, JSON)] = [("partyId", .string(displayedPartyId ?? partyId)), ("source", .string(source))]
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
