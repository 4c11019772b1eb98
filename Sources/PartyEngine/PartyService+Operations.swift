import Foundation
import PartyCore

extension PartyService {
    /// What an operator watches: active parties, and devices active in any party in R17a's last 10 minutes.
    /// Database reads under the state lock: read on a timer, never per request.
    public func operationalCounts() throws -> (activeParties: Int, activeGuests: Int) {
        let since = CrowdVeto.activeSince(now)
        return try withState { state in
            (try state.store.activePartyCount(), try state.store.activeGuestCount(since: since))
        }
    }
}
