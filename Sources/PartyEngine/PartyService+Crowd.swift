import Foundation
import PartyCore

extension PartyService {
    /// R17a: toggles a veto; at the threshold the current song is skipped exactly as by a host `next` (only while
    /// it is still current: nothing is skipped twice), a waiting one was removed.
    public func veto(uri: String, deviceId: String, clientAddress: String = "local", party: Party) throws -> VetoOutcome {
        let outcome = try withState { try $0.veto(uri: uri, deviceId: deviceId, clientAddress: clientAddress, party: party) }
        if outcome.vetoed { EngineMetrics.vetoes.add() }
        if let entryId = outcome.skipsEntry { _ = try advance(party, request: .crowdVeto(entryId: entryId)) }
        return outcome
    }

    /// R30: bans the adder of the entry; returns how many of their waiting songs left.
    public func ban(entryId: Int64, party: Party) throws -> Int { try withState { try $0.ban(entryId: entryId, party: party) } }

    /// R30: lifts every ban of the party.
    public func liftBans(party: Party) throws { try withState { try $0.liftBans(partyId: party.id) } }

    /// R17a: writes the guests' pending activity in the next group commit, if there is any: once a second,
    /// from the upkeep timer, which does not wait for it.
    public func flushActivity() {
        guard withState({ $0.hasPendingActivity }) else { return }
        write({ try $0.flushActivity() }) { result in
            if case .failure(let error) = result { Log.error("guest activity: \(error)") }
        }
    }

    /// The same, waited for: before the server stops.
    public func flushActivityNow() throws {
        guard withState({ $0.hasPendingActivity }) else { return }
        try write { try $0.flushActivity() }
    }
}
