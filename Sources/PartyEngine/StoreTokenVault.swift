import Foundation
import PartyCore
import Providers

/// Providers keep their tokens through this, in the party's database rows (R7 keeps them, R5 deletes them).
/// `@unchecked Sendable`: `service` is set once at start-up, before any request; the service serializes the rest.
public final class StoreTokenVault: TokenVault, @unchecked Sendable {
    public weak var service: PartyService?

    public init() {}

    public func tokens(partyId: String) -> ProviderTokens? {
        service?.withState { try? $0.store.tokens(partyId: partyId) } ?? nil
    }

    public func save(_ tokens: ProviderTokens, partyId: String) {
        service?.withState { state in
            do { try state.store.save(tokens: tokens, partyId: partyId) } catch { Log.error("saving tokens: \(error)") }
        }
    }

    public func delete(partyId: String) {
        service?.withState { _ = try? $0.store.deleteTokens(partyId: partyId) }
    }
}
