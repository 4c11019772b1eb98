import Foundation
import JSONKit
import PartyStore

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

/// One event on its way to the streams: what happened (`kind`), whose it is, and, once logged, its place in the
/// party's log. Encoded once (`message`); the log keeps exactly those bytes for replay.
struct ServerEvent: Sendable {
    var kind: EventKind
    var partyId: String
    var source: String = "server"
    /// Only streams this audience admits get the event (nil: every stream of the party).
    var audience: Audience? = nil
    /// The `partyId` the payload names when the event travels on another channel (an installation's stream).
    var displayedPartyId: String? = nil
    var at: Date
    /// The party's sequence number once the event is in its log; nil: sent live only, without `id:`.
    var sequence: Int64? = nil
    /// `message` as the log keeps it, once appended: the frame reuses it instead of encoding it again.
    var encodedMessage: String? = nil
    /// The other instances heard of it with its commit (`EventChannel.ringAtCommit`): no ring after it.
    var rungAtCommit = false

    /// The `data:` JSON: `{"type", "timestamp", "payload":{partyId, source, …}}`, payload values all strings.
    var message: String {
        Self.message(type: kind.type, at: at, payload: [("partyId", displayedPartyId ?? partyId), ("source", source)] + kind.payload)
    }

    /// The one encoding of a message: SPEC's shape, payload values strings only.
    /// Written directly, the bytes `JSON` would serialize for that object (each like's event was a value
    /// tree first; `ServerEventTests` checks both agree).
    static func message(type: String, at: Date, payload: [(String, String)]) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(128 + payload.reduce(0) { $0 + $1.0.utf8.count + $1.1.utf8.count + 6 })
        bytes += #"{"type":"#.utf8
        JSON.append(string: type, to: &bytes)
        bytes += #","timestamp":"#.utf8
        bytes += String(Int(at.timeIntervalSince1970 * 1000)).utf8
        bytes += #","payload":{"#.utf8
        for (index, (key, value)) in payload.enumerated() {
            if index > 0 { bytes.append(UInt8(ascii: ",")) }
            JSON.append(string: key, to: &bytes)
            bytes.append(UInt8(ascii: ":"))
            JSON.append(string: value, to: &bytes)
        }
        bytes += "}}".utf8
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The row the log keeps.
    var logged: LoggedEvent {
        LoggedEvent(type: kind.type, message: message, audienceSource: audience?.source,
                    audienceInstallationId: audience?.installationId, createdAt: at)
    }

    func frame() -> [UInt8] { Self.frame(id: sequence, message: encodedMessage ?? message) }

    /// The SSE frame: `id:` (when logged) then one `data:` line per line of the message, then a blank line.
    static func frame(id: Int64?, message: String) -> [UInt8] {
        var text = id.map { "id: \($0)\n" } ?? ""
        for line in message.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line)\n"
        }
        text += "\n"
        return Array(text.utf8)
    }
}

extension LoggedEvent {
    /// Whether a stream of `audience` may hear this logged event (scoping survives replay).
    func admits(_ stream: Audience) -> Bool {
        guard let source = audienceSource else { return true }
        return Audience(source: source, installationId: audienceInstallationId).admits(stream)
    }
}
