import HTTPServer
import PartyCore
import PartyEngine

/// R34: the routes a co-host may call ask for one of these; every other host route stays `requireHost`, which
/// refuses a co-host's link with 403 (ending the party, settings, co-hosts, the default playlist, the PINs).
extension PartyService {
    /// The host, or a co-host (R24/R29's order of checks holds for both).
    @discardableResult
    func requireHostOrCohost(_ request: Request, partyId: String) throws -> Party {
        try authorize(Credential(request), partyId: partyId, allowCohost: true).0
    }

    /// The host, a co-host, or the registered monitor (R21's "M").
    @discardableResult
    func requireHostCohostOrMonitor(_ request: Request, partyId: String) throws -> (Party, Caller) {
        try authorize(Credential(request), partyId: partyId, allowMonitor: true, allowCohost: true)
    }
}
