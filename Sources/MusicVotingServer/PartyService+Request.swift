import HTTPServer
import PartyCore
import PartyEngine

/// The service speaks of credentials; a request carries one in its Bearer header.
extension Credential {
    init(_ request: Request) {
        self.init(token: request.bearerToken, clientAddress: request.clientAddress)
    }
}

extension PartyService {
    /// R24/R29: 404 before 401 before the throttle before 403.
    func requireHost(_ request: Request, partyId: String) throws -> Party {
        try authorize(Credential(request), partyId: partyId).0
    }

    /// Host PIN or the registered monitor's token (R21's "M").
    @discardableResult
    func requireHostOrMonitor(_ request: Request, partyId: String) throws -> (Party, Caller) {
        try authorize(Credential(request), partyId: partyId, allowMonitor: true)
    }
}

/// The HTTP layer's streaming response is where the hub writes a client's events.
extension EventStream: EventSink {}
