import Foundation
import PartyCore

/// What this instance keeps of a party while it runs and drops in one line when it ends (`PartyState.end`).
struct LiveParty {
    /// Where the party's player registered from (issue 13: it stays the device while a stream from there is open).
    var deviceAddress: String?
    /// R20a: whether the current song is heard, and why a stalled one is not.
    var listening: Listening?
    var stallReason: StallReason?
    /// Spotify Web Playback SDK device (the monitor's SDK makes a new one on every load).
    var sdkDevice: String?
    /// Monitor tokens the party's monitor held before it was replaced (the last few; wrong, but no guess).
    var retiredMonitorTokens: [String] = []
    /// Issue 26, on the instance owning the party's timers: what `device-changed` last said.
    var announcedActive: Bool?
    /// R17a: when this instance last wrote each device's activity (`PartyState.recordActivity`).
    var activityWritten: [String: Date] = [:]
}
