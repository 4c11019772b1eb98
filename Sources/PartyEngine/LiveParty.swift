import Foundation
import PartyCore

/// What this instance keeps of a party while it runs and drops in one line when it ends (`PartyState.end`).
struct LiveParty {
    /// Where the party's player registered from (it stays the device while a stream from there is open).
    var deviceAddress: String?
    /// R20a: whether the current song is heard, and why a stalled one is not.
    var listening: Listening?
    var stallReason: StallReason?
    /// Spotify Web Playback SDK device (the monitor's SDK makes a new one on every load).
    var sdkDevice: String?
    /// Monitor tokens the party's monitor held before it was replaced (the last few; wrong, but no guess).
    var retiredMonitorTokens: [String] = []
    /// Several instances: a progress report changed what this instance shares of the player since its last refresh.
    var presenceToShare = false
    /// On the instance owning the party's timers: what `device-changed` last said.
    var announcedActive: Bool?
    /// R17a: when this instance last wrote each device's activity (`PartyState.recordActivity`), for at most
    /// `activityDevices` devices (device ids are the guests' own strings).
    private(set) var activityWritten: [String: Date] = [:]
    private var activityPrunedAt = Date.distantPast
    static let activityDevices = 4_096

    /// Device ids this instance knows the party admitted (`PartyState.admitGuest`), at most `knownGuests`: the
    /// database answers for the rest.
    private(set) var guests: Set<String> = []
    static let knownGuests = 8_192

    mutating func noteGuest(_ deviceId: String) {
        if guests.count < Self.knownGuests { guests.insert(deviceId) }
    }

    mutating func forgetGuest(_ deviceId: String) { guests.remove(deviceId) }

    /// R30 with one writer: the party's banned adders, read once and dropped when a ban or a lift changes them
    /// (every like asked the database).
    var bannedAdders: Set<String>?
    /// R17a: activity noted but not yet written, one writer only (`PartyState.flushActivity` writes it).
    private(set) var pendingActivity: [String: Date] = [:]

    /// Notes a device's activity now, to be written with the party's next flush.
    mutating func notePendingActivity(by deviceId: String, at now: Date) {
        pendingActivity[deviceId] = now
        noteActivityWritten(by: deviceId, at: now)
    }

    /// The pending activity, in device order (neighbouring rows of the table), now no longer pending.
    mutating func takePendingActivity() -> [(deviceId: String, at: Date)] {
        defer { pendingActivity.removeAll(keepingCapacity: true) }
        return pendingActivity.sorted { $0.key < $1.key }.map { ($0.key, $0.value) }
    }

    /// Rows a rolled-back transaction did not write, pending again unless the device was active since.
    mutating func restorePendingActivity(_ rows: [(deviceId: String, at: Date)]) {
        for (deviceId, at) in rows where (pendingActivity[deviceId] ?? .distantPast) < at { pendingActivity[deviceId] = at }
    }

    /// Notes a device's activity written now. Changed in place (a copy of the map per like cost a like storm more
    /// than the write it saved); when full, the devices not written within the resolution go, at most once per it.
    mutating func noteActivityWritten(by deviceId: String, at now: Date) {
        if activityWritten.count >= Self.activityDevices, now.timeIntervalSince(activityPrunedAt) >= CrowdVeto.activityResolution {
            activityWritten = activityWritten.filter { now.timeIntervalSince($0.value) < CrowdVeto.activityResolution }
            activityPrunedAt = now
        }
        if activityWritten.count < Self.activityDevices { activityWritten[deviceId] = now }
    }
}
