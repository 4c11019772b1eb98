import Foundation
import ClientNetwork

/// R11, R17 and who a guest is. A device id is the client's own choice, so a guest is an identity the server admitted
/// into the party (`PartyState.admitGuest`): the first use of a device id in a party is admitted under a ration per
/// network and per party, and every per-guest rule counts admitted identities only. With the
/// ration, rotating device ids gains a guest no more than the ration's identities; nothing is counted per address for
/// adds and likes any more, so the guests behind one NAT address or on one IPv6 /64 each have their own limits.
/// A value type: the owner serializes access; time is injected.
public struct GuestLimits: Sendable {
    /// R11: 10 adds per guest per rolling minute.
    public static let addsPerDevice = 10
    /// Like and veto toggles per guest per minute: a guest liking fast stays far below.
    public static let likesPerDevice = 30

    /// The ration of new guests per party: a crowd that scans the QR code at once gets in, a thousand made-up
    /// identities take most of an hour from one network. Per network (IPv4 /24, IPv6 /64): 60 a minute and 200 in 10
    /// minutes; per party: 600 in 10 minutes. Nothing per address: behind a venue's NAT address every guest has the
    /// same one, and an attacker with many addresses of a network is held by the network's ration anyway.
    public static let newGuestsPerNetwork = 60
    public static let newGuestsPerNetworkInTenMinutes = 200
    public static let newGuestsPerPartyInTenMinutes = 600

    private var addsByDevice: SlidingWindowLimiter
    private var likesByDevice: SlidingWindowLimiter
    private var newGuests: [(limiter: SlidingWindowLimiter, key: @Sendable (String, String) -> String)]
    /// Whether the counts live in a shared database (R31).
    private let shared: Bool

    /// `shared`: counts shared by several instances (R31); nil: in memory. `newGuestsPerNetwork` scales the ration
    /// (the ten-minute and party figures with it); 0 admits every new guest (a load generator's phones).
    public init(shared: (any SharedLimits)? = nil, newGuestsPerNetwork: Int = GuestLimits.newGuestsPerNetwork) {
        self.shared = shared != nil
        addsByDevice = SlidingWindowLimiter(limit: Self.addsPerDevice, name: "adds-device", shared: shared)
        likesByDevice = SlidingWindowLimiter(limit: Self.likesPerDevice, name: "likes-device", shared: shared)
        func ration(_ limit: Int, window: TimeInterval, _ name: String, _ key: @escaping @Sendable (String, String) -> String)
            -> (limiter: SlidingWindowLimiter, key: @Sendable (String, String) -> String) {
            (SlidingWindowLimiter(limit: limit, window: window, name: name, shared: shared), key)
        }
        let scale = { (limit: Int) in limit * newGuestsPerNetwork / Self.newGuestsPerNetwork }
        newGuests = newGuestsPerNetwork == 0 ? [] : [
            ration(newGuestsPerNetwork, window: 60, "guests-network") { party, address in party + "|" + AddressPrefix.network(of: address) },
            ration(scale(Self.newGuestsPerNetworkInTenMinutes), window: 600, "guests-network-10m") { party, address in
                party + "|" + AddressPrefix.network(of: address)
            },
            ration(scale(Self.newGuestsPerPartyInTenMinutes), window: 600, "guests-party") { party, _ in party },
        ]
    }

    /// Counts one new guest of the party from `address`, or throws `.tooManyNewGuests` without counting it.
    public mutating func admitNewGuest(party: String, address: String, at now: Date) throws(PartyError) {
        guard !newGuests.isEmpty else { return }
        if shared {
            if let retry = SlidingWindowLimiter.admit(1, newGuests.map { ($0.limiter, $0.key(party, address)) }, at: now) {
                throw .tooManyNewGuests(retryAfterSeconds: retry)
            }
            return
        }
        for ration in newGuests {
            if let retry = ration.limiter.retryAfter(key: ration.key(party, address), at: now) { throw .tooManyNewGuests(retryAfterSeconds: retry) }
        }
        for index in newGuests.indices { newGuests[index].limiter.record(key: newGuests[index].key(party, address), at: now) }
    }

    /// Throws `.rateLimited` when `count` more adds do not all fit. Only adds that went in are counted
    /// (`recordAdds`), so a refused duplicate costs the guest nothing.
    public func checkAdds(_ count: Int, device: String, party: String, at now: Date) throws(PartyError) {
        let key = party + "|" + device
        if addsByDevice.remaining(key: key, at: now) < count {
            throw .rateLimited(retryAfterSeconds: addsByDevice.retryAfter(key: key, at: now) ?? 60)
        }
    }

    /// R18b: what `device` may still add in the party now, without spending any of it.
    public func addBudget(device: String, party: String, at now: Date) -> AddBudget {
        let (left, next) = addsByDevice.budget(key: party + "|" + device, at: now)
        return AddBudget(addsLeft: left, nextAddInMs: next)
    }

    public mutating func recordAdds(_ count: Int, device: String, party: String, at now: Date) {
        addsByDevice.record(key: party + "|" + device, at: now, count: count)
    }

    /// Counts one like or veto toggle, or throws `.rateLimited` without counting it.
    public mutating func admitLike(device: String, party: String, at now: Date) throws(PartyError) {
        if shared { return try admitSharedLike(device: device, party: party, at: now) }
        if let retry = likesByDevice.take(key: party + "|" + device, at: now) { throw .rateLimited(retryAfterSeconds: retry) }
    }

    /// A like counted in the shared database, checked and counted in one round trip (a like is the most frequent
    /// write). It changes nothing in this value, so the engine runs it before it takes its lock.
    public func admitSharedLike(device: String, party: String, at now: Date) throws(PartyError) {
        if let retry = SlidingWindowLimiter.admit(1, [(limiter: likesByDevice, key: party + "|" + device)], at: now) {
            throw .rateLimited(retryAfterSeconds: retry)
        }
    }
}

/// R18b: a guest's add budget (R11). `nextAddInMs`: until one more add is back (0 while the budget is full).
public struct AddBudget: Sendable, Equatable {
    public let addsLeft: Int
    public let nextAddInMs: Int

    public init(addsLeft: Int, nextAddInMs: Int) {
        self.addsLeft = addsLeft
        self.nextAddInMs = nextAddInMs
    }

    /// Nothing spent: the budget stays so until the guest adds (a write), whatever the clock does.
    public var isFull: Bool { addsLeft >= GuestLimits.addsPerDevice }
}
