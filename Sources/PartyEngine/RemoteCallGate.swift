import PartyCore
import Synchronization
import ClientNetwork

/// Remote provider calls run on worker threads while their connections are suspended. At most `limit` guest calls
/// per provider run at once, and at most `perClient` of them for one client (one exact address: an IPv6 /64 is a whole Wi-Fi of phones;
/// one address must not hold them all while the upstream is slow); the host's and the
/// monitor's calls (authenticated, so never a flood) have `limit + reserved` slots of their own. One more fails fast with 503 instead of queueing:
/// queued calls to a slow upstream would take a thread each and make even a cached search wait.
public final class RemoteCallGate: Sendable {
    public let limit: Int
    public let perClient: Int
    public let reserved: Int
    private let inFlight = Mutex<(guests: [String: Int], clients: [String: Int], party: [String: Int])>(([:], [:], [:]))

    public init(limit: Int = 8, perClient: Int = 2, reserved: Int = 2) {
        self.limit = limit
        self.perClient = perClient
        self.reserved = reserved
    }

    /// Who holds a slot: a guest's client address, or the party's host or monitor (`nil`).
    public struct Slot: Sendable {
        let provider: String
        let client: String?
    }

    /// Takes a slot for `provider`, or returns nil when the caller's share is busy.
    public func enter(_ provider: String, client address: String?) -> Slot? {
        inFlight.withLock { counts in
            guard let address else {
                guard counts.party[provider, default: 0] < limit + reserved else { return nil }
                counts.party[provider, default: 0] += 1
                return Slot(provider: provider, client: nil)
            }
            let client = provider + "|" + AddressPrefix.host(of: address)
            guard counts.guests[provider, default: 0] < limit, counts.clients[client, default: 0] < perClient else { return nil }
            counts.guests[provider, default: 0] += 1
            counts.clients[client, default: 0] += 1
            return Slot(provider: provider, client: client)
        }
    }

    public func leave(_ slot: Slot) {
        inFlight.withLock { counts in
            guard let client = slot.client else {
                counts.party[slot.provider, default: 1] -= 1
                return
            }
            counts.guests[slot.provider, default: 1] -= 1
            counts.clients[client, default: 1] -= 1
            if counts.clients[client] == 0 { counts.clients[client] = nil }
        }
    }
}
