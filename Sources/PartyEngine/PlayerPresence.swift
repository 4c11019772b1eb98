import Foundation
import PartyCore

/// R20a/R21: where a party's player is known. Alone (`LocalPlayers`) this instance's `Presence` and `LiveParty` say
/// everything; with several instances (`SharedPlayers`) the player may be connected to any of them, so each writes
/// what it knows and the owner of the party's timers decides. `PartyState` asks it wherever the answer differs.
protocol PlayerPresence: Sendable {
    /// R21: whether the party's player is connected.
    func deviceActive(partyId: String, state: PartyState) -> Bool
    /// A TV is connected: its monitor stream is open and it reports.
    func hasConnectedTV(partyId: String, state: PartyState) -> Bool
    /// Writes this instance's record of the party's player (after every change of it).
    func share(partyId: String, state: PartyState)
    /// Publishes `device-changed` for the parties whose player came or went (`also`: streams just opened or closed).
    func announceChanges(also partyIds: [String], state: inout PartyState)
    /// R20a after a change of the monitors: the stalls this instance detects.
    func detectStalls(state: inout PartyState)
    /// Once a second, after `detectStalls`.
    func watch(state: inout PartyState)
    /// The party's monitor streams opened or closed here.
    func streamsChanged(partyId: String, state: inout PartyState)
    /// The monitor reports a song this instance does not listen to yet.
    func hearsUnknownSong(partyId: String, state: inout PartyState)
    /// Why the party's song is stalled as far as this instance can tell (nil: it is not); `known`: the party's
    /// playback as the caller read it just now, if it did.
    func knownStallReason(partyId: String, known: Playback?, state: PartyState) -> StallReason?
    /// The web player registered with another instance, when `address` is its address (then noted in `state`).
    func learnWebPlayer(partyId: String, address: String, state: inout PartyState) -> Bool
    func setWebPlayer(address: String?, partyId: String)
    /// The party's Spotify SDK device registered with another instance.
    func sdkDevice(partyId: String) -> String?
    func setSDKDevice(_ deviceId: String, partyId: String)
    /// Whether `token` is one the party's monitor held before it was replaced, on another instance.
    func isRetiredMonitorToken(_ token: String, partyId: String) -> Bool
    /// The party's retired monitor tokens, newest last (`kept`: this instance's).
    func retiredMonitorTokens(partyId: String, kept: [String]) throws -> [String]
    func keepRetiredMonitorTokens(_ tokens: [String], partyId: String) throws
    /// The party ended: what is kept of its player goes.
    func forget(partyId: String) throws
    /// Drops what nobody kept up since `cutoff`.
    func prune(before cutoff: Date, at now: Date) throws
}

/// One instance alone: its own presence and bookkeeping are the whole truth.
struct LocalPlayers: PlayerPresence {
    func deviceActive(partyId: String, state: PartyState) -> Bool {
        state.presence.isActive(partyId: partyId, at: state.now, monitorStreams: state.monitorStreams(partyId),
                                reports: state.live[partyId]?.deviceAddress == nil)
    }

    func hasConnectedTV(partyId: String, state: PartyState) -> Bool {
        state.monitorStreams(partyId) > 0 && deviceActive(partyId: partyId, state: state)
    }

    func share(partyId: String, state: PartyState) {}

    func announceChanges(also partyIds: [String], state: inout PartyState) {
        let counter = state.playerStreams
        let live = state.live
        for change in state.presence.changes(at: state.now, monitorStreams: { counter($0, live[$0]?.deviceAddress) },
                                             reports: { live[$0]?.deviceAddress == nil }, also: partyIds) {
            state.publish(.deviceChanged(active: change.active), partyId: change.partyId)
        }
    }

    /// R20a, once a second: a playing song whose monitor left is `no-monitor`, one whose monitor is silent
    /// for more than 5 s `monitor-silent`; a stall's reason follows the monitor coming and going.
    func detectStalls(state: inout PartyState) {
        for (partyId, heard) in state.live.compactMapValues(\.listening) {
            let active = state.deviceActive(partyId: partyId)
            let silent = state.now.timeIntervalSince(heard.heardAt) > Playback.silenceLimit
            switch state.live[partyId]?.stallReason {
            case nil:
                if !active { state.stall(partyId: partyId, reason: .noMonitor) } else if silent { state.stall(partyId: partyId, reason: .monitorSilent) }
            case .noMonitor?:
                if active, silent { state.stall(partyId: partyId, reason: .monitorSilent) }
            case .monitorSilent?, .autoplayBlocked?, .providerError?:
                if !active { state.stall(partyId: partyId, reason: .noMonitor) }
            }
        }
    }

    func watch(state: inout PartyState) {}

    func streamsChanged(partyId: String, state: inout PartyState) {}

    /// Alone, this instance listens to every playing party from the start (`listenToActiveParties`).
    func hearsUnknownSong(partyId: String, state: inout PartyState) {}

    /// This instance's bookkeeping: it is the stored playback's.
    func knownStallReason(partyId: String, known: Playback?, state: PartyState) -> StallReason? { state.live[partyId]?.stallReason }

    func learnWebPlayer(partyId: String, address: String, state: inout PartyState) -> Bool { false }

    func setWebPlayer(address: String?, partyId: String) {}

    func sdkDevice(partyId: String) -> String? { nil }

    func setSDKDevice(_ deviceId: String, partyId: String) {}

    func isRetiredMonitorToken(_ token: String, partyId: String) -> Bool { false }

    func retiredMonitorTokens(partyId: String, kept: [String]) throws -> [String] { kept }

    func keepRetiredMonitorTokens(_ tokens: [String], partyId: String) throws {}

    func forget(partyId: String) throws {}

    func prune(before cutoff: Date, at now: Date) throws {}
}
