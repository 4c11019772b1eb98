import Foundation
import PartyCore

/// How this instance works with others, one seam per concern: the guards' counts and the TV pairings, the parties'
/// players, who writes the database (and where a like is counted), and the event channel. Each has an implementation
/// inside the process and one on the PostgreSQL database several instances share; the application picks one set
/// once, where it is put together, and nothing below asks which it got.
public struct Coordination: Sendable {
    let limits: any LimitCounter
    let pairings: any PairingRegistry
    let players: any PlayerPresence
    let writers: any PartyWriters
    let channel: any EventChannel

    /// One instance alone: everything in this process.
    public static let alone = Coordination(limits: LocalLimits(), pairings: LocalPairings(), players: LocalPlayers(),
                                           writers: SoleWriter(), channel: NoOtherInstances())

    /// Several instances on one database: the counts and pairings in `guards` (likes in the write's transaction), the
    /// players in `presence`, the events through `doorbell`.
    public static func shared(guards: some LimitCounter & PairingRegistry, presence: any PresenceRecords,
                              doorbell: Doorbell) -> Coordination {
        Coordination(limits: guards, pairings: guards, players: SharedPlayers(records: presence), writers: SeveralWriters(),
                     channel: doorbell)
    }
}

/// How events committed here reach the streams other instances hold (`Doorbell`), and so which go to the log.
protocol EventChannel: Sendable {
    /// Whether an event of `kind` goes to the party's log: what clients resume with and, with several instances,
    /// every event (the log is how it reaches the streams held by the others, in order).
    func logs(_ kind: EventKind) -> Bool
    /// Events of `partyId` up to `sequence` committed here.
    func ring(partyId: String, sequence: Int64)
    /// An event that is not logged (`logs` false), for the party's streams other instances hold (best effort).
    func relay(partyId: String, message: String)
    /// What the transaction that logged `events` rings with its commit (`PartyStoring.ringInstances`) instead of a
    /// `ring` after it; nil: ring after the commit.
    func ringAtCommit(_ events: ArraySlice<ServerEvent>) -> String?
    /// Ends the channel before the process stops.
    func stop()
}

/// One instance alone: every stream is this instance's.
struct NoOtherInstances: EventChannel {
    func logs(_ kind: EventKind) -> Bool { kind.isLogged }
    func ring(partyId: String, sequence: Int64) {}
    func relay(partyId: String, message: String) {}
    func ringAtCommit(_ events: ArraySlice<ServerEvent>) -> String? { nil }
    func stop() {}
}

extension Doorbell: EventChannel {
    /// Every event but the monitor's progress: the log is how an event reaches the others, in order. Progress (R23,
    /// every second, never replayed, stale a second later) is relayed with the doorbell instead (`relay`): a report
    /// is no transaction, no row and no sequence number.
    func logs(_ kind: EventKind) -> Bool { kind.type != EventKind.progressType }
}
