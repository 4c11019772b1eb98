import Foundation
import PartyCore

/// SPEC "Server-Sent Events": what happened, typed, so the compiler checks every producer. The wire's `type` and
/// its all-strings payload are derived here once (`type`, `payload`), in the order clients have always seen.
enum EventKind: Sendable {
    case queueUpdated(QueueChange)
    /// The new count and the new order of the waiting entries (R9 decided once, here).
    case voteUpdated(uri: String, likeCount: Int, entryId: Int64, order: [Int64])
    /// R17a: a veto toggled; the count, and how many skip the song now.
    case vetoUpdated(uri: String, vetoCount: Int, vetoNeeded: Int, entryId: Int64)
    case trackChanged(TrackChange)
    /// R23: relayed from the monitor about once a second; never changes state.
    case progress(positionMs: Int, durationMs: Int, paused: Bool)
    case partyEnded
    /// `source` web or ios (the event's own `source`); iOS logins name their installation.
    case loginSuccess(installationId: String?)
    case deviceChanged(active: Bool)
    case playbackChanged(isPlaying: Bool, progressMs: Int)
    /// Ours: the provider refused to play or to refill; the host and the monitor show `message`.
    /// `code`: the stable code pages translate (ProviderError.code, `refill_failed`); nil for the TV's own words.
    case playbackError(message: String, code: String? = nil)
    /// Ours (R20a): the current song is not heard; `reason` and the frozen position.
    case playbackStalled(reason: StallReason, positionMs: Int)
    /// Ours (R24a): wrong host PINs for this party passed its budget; checks are slowed, the host page says so.
    case pinGuessing(failures: Int)
    /// Ours: a song left the queue by the crowd's veto (R17a), the host's removal or a ban (R30); the adder's page,
    /// the host page and the TV say so once. Never who added it.
    case entryRemoved(entry: QueueEntry, reason: RemovalReason, wasPlaying: Bool)
    /// R35: the songs waiting for approval changed: one was asked for, approved, declined or removed with a ban (R30);
    /// `count` are waiting now. Never who asked: the guest's page knows its own songs' ids.
    case pendingUpdated(PendingChange, pendingId: Int64, count: Int)

    /// R35: what happened to a song waiting for approval.
    enum PendingChange: String, Sendable {
        case added, approved, declined, removed
    }

    /// Ours (R34): the host's co-host links changed (one was made, or first opened): host pages reload their list.
    case cohostsUpdated(CohostChange)
    /// Ours (R34): the host revoked these links (by their handles, never their tokens); a co-host page whose
    /// handle is among them stops and says so.
    case cohostRevoked(ids: [String])

    /// What happened to the co-host links.
    enum CohostChange: String, Sendable {
        case created, joined
    }

    /// Who took a song out of the queue.
    enum RemovalReason: String, Sendable {
        case crowd, host, ban
    }

    /// Why the queue changed.
    enum QueueChange: String, Sendable {
        case add, remove, refill, advance
        /// R9b, R17a: the host changed the fair order or the veto share; the order or the veto's threshold changed.
        case settings
        /// R36: a guest set its nickname; the entries that show it changed.
        case nickname
    }

    /// What `track-changed` says: the playback, and the new entry with its cover (pages show the new
    /// song without fetching it).
    struct TrackChange: Sendable {
        var isPlaying: Bool
        var progressMs: Int
        var entry: QueueEntry?
        var playbackStartedAt: Date?
    }

    var type: String {
        switch self {
        case .queueUpdated: "queue-updated"
        case .voteUpdated: "vote-updated"
        case .vetoUpdated: "veto-updated"
        case .trackChanged: "track-changed"
        case .progress: "progress"
        case .partyEnded: "party-ended"
        case .loginSuccess: "login-success"
        case .deviceChanged: "device-changed"
        case .playbackChanged: "playback-changed"
        case .playbackError: "playback-error"
        case .playbackStalled: "playback-stalled"
        case .pinGuessing: "pin-guessing"
        case .entryRemoved: "entry-removed"
        case .pendingUpdated: "pending-updated"
        case .cohostsUpdated: "cohosts-updated"
        case .cohostRevoked: "cohost-revoked"
        }
    }

    /// Whether the event goes to the party's log (and so has an id and is replayed). What a client
    /// shows of the party's state is logged; the monitor's progress (every second, stale a second later), a
    /// provider's error message (said once, the stall that follows is logged) and a PIN-guessing alert (this
    /// instance's throttle) are not: they are sent live only, without an `id:`.
    /// With several instances the error and the alert go to the log too (it is how an event reaches the streams held
    /// by the other instances, in order with the rest), but a resumed stream is never sent them again
    /// (`liveOnlyTypes`); progress is relayed with the doorbell instead (`Doorbell.relay`).
    var isLogged: Bool { !Self.liveOnlyTypes.contains(type) }

    static let liveOnlyTypes: Set<String> = [progressType, "playback-error", "pin-guessing"]
    static let progressType = "progress"

    /// Ids as one comma-separated string, their digits written in place (every like's event carries the
    /// queue's order; a string per id and then their join were most of the event's encoding).
    static func list(_ ids: [Int64]) -> String {
        // At most 20 characters and a comma per id.
        let bytes = [UInt8](unsafeUninitializedCapacity: ids.count * 21) { buffer, count in
            count = 0
            for (index, id) in ids.enumerated() {
                if index > 0 { buffer[count] = UInt8(ascii: ","); count += 1 }
                if id < 0 { buffer[count] = UInt8(ascii: "-"); count += 1 }
                var digits = 1, rest = id.magnitude / 10
                while rest > 0 { digits += 1; rest /= 10 }
                rest = id.magnitude
                for place in stride(from: count + digits - 1, through: count, by: -1) {
                    buffer[place] = UInt8(ascii: "0") + UInt8(rest % 10)
                    rest /= 10
                }
                count += digits
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// The payload members after `partyId` and `source`, all strings (SPEC: clients drop other kinds).
    var payload: [(String, String)] {
        switch self {
        case .queueUpdated(let change):
            return [("reason", change.rawValue)]
        case .voteUpdated(let uri, let likeCount, let entryId, let order):
            return [("uri", uri), ("likeCount", String(likeCount)), ("entryId", String(entryId)),
                    ("order", Self.list(order))]
        case .vetoUpdated(let uri, let vetoCount, let vetoNeeded, let entryId):
            return [("uri", uri), ("vetoCount", String(vetoCount)), ("vetoNeeded", String(vetoNeeded)), ("entryId", String(entryId))]
        case .trackChanged(let change):
            var payload = [("isPlaying", String(change.isPlaying)), ("progressMs", String(change.progressMs))]
            if let entry = change.entry {
                payload += [("uri", entry.track.uri), ("name", entry.track.name),
                            ("artist", entry.track.artists.joined(separator: ", ")), ("durationMs", String(entry.track.durationMs)),
                            ("entryId", String(entry.id))]
                if let image = entry.track.imageURL { payload.append(("imageUrl", image)) }
            }
            if let startedAt = change.playbackStartedAt {
                payload.append(("playbackStartedAt", String(Int(saturating: startedAt.timeIntervalSince1970 * 1000))))
            }
            return payload
        case .progress(let positionMs, let durationMs, let paused):
            return [("position", String(positionMs)), ("duration", String(durationMs)), ("paused", String(paused))]
        case .partyEnded:
            return []
        case .loginSuccess(let installationId):
            return installationId.map { [("installationId", $0)] } ?? []
        case .deviceChanged(let active):
            return [("deviceActive", String(active))]
        case .playbackChanged(let isPlaying, let progressMs):
            return [("isPlaying", String(isPlaying)), ("progressMs", String(progressMs))]
        case .playbackError(let message, let code):
            return [("message", message)] + (code.map { [("code", $0)] } ?? [])
        case .playbackStalled(let reason, let positionMs):
            return [("reason", reason.rawValue), ("positionMs", String(positionMs))]
        case .pinGuessing(let failures):
            return [("failures", String(failures))]
        case .entryRemoved(let entry, let reason, let wasPlaying):
            return [("entryId", String(entry.id)), ("uri", entry.track.uri), ("name", entry.track.name),
                    ("reason", reason.rawValue), ("wasPlaying", String(wasPlaying))]
        case .pendingUpdated(let change, let pendingId, let count):
            return [("reason", change.rawValue), ("pendingId", String(pendingId)), ("count", String(count))]
        case .cohostsUpdated(let change):
            return [("reason", change.rawValue)]
        case .cohostRevoked(let ids):
            return [("cohostIds", ids.joined(separator: ","))]
        }
    }
}
