import Foundation
import ClientNetwork

/// R11, R17 and who a guest is. A device id is the client's own choice, so a guest is an identity the server admitted
/// into the party (`PartyState.admitGuest`): the first use of a device id in a party is admitted under a ration per
/// network and per party, and every per-guest rule counts admitted identities only. With the
/// ration, rotating device ids gains a guest no more than the ration's identities; nothing is counted per address for
/// adds and likes, so the guests behind one NAT address or on one IPv6 /64 each have their own limits.
/// The rules as data and their decisions, and the in-memory counts of one instance: a value type, the owner
/// serializes access; time is injected.
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

    /// The limits as data, shared by this value and the count several instances keep in their database.
    public static let adds = LimitRule("adds-device", limit: addsPerDevice)
    public static let likes = LimitRule("likes-device", limit: likesPerDevice)

    /// One ration of new guests: its rule and the key it counts under, of a party and a client address.
    public struct Ration: Sendable {
        public let rule: LimitRule
        public let key: @Sendable (_ party: String, _ address: String) -> String
    }

    /// The rations of new guests; `newGuestsPerNetwork` scales them (the ten-minute and party figures with it), 0
    /// admits every new guest (a load generator's phones).
    public static func rations(newGuestsPerNetwork: Int = GuestLimits.newGuestsPerNetwork) -> [Ration] {
        let scale = { (limit: Int) in limit * newGuestsPerNetwork / Self.newGuestsPerNetwork }
        let network: @Sendable (String, String) -> String = { party, address in party + "|" + AddressPrefix.network(of: address) }
        return newGuestsPerNetwork == 0 ? [] : [
            Ration(rule: LimitRule("guests-network", limit: newGuestsPerNetwork), key: network),
            Ration(rule: LimitRule("guests-network-10m", limit: scale(Self.newGuestsPerNetworkInTenMinutes), window: 600), key: network),
            Ration(rule: LimitRule("guests-party", limit: scale(Self.newGuestsPerPartyInTenMinutes), window: 600)) { party, _ in party },
        ]
    }

    /// The key a guest's adds and likes count under in a party.
    public static func key(device: String, party: String) -> String { party + "|" + device }

    /// R11: the answer to `count` more adds when `left` fit now, and the next one fits in `retryAfter` seconds.
    public static func checkAdds(_ count: Int, left: Int, retryAfter: Int?) throws(PartyError) {
        if left < count { throw .rateLimited(retryAfterSeconds: retryAfter ?? 60) }
    }

    private var addsByDevice = SlidingWindowLimiter(Self.adds)
    private var likesByDevice = SlidingWindowLimiter(Self.likes)
    private var newGuests: [(limiter: SlidingWindowLimiter, ration: Ration)]

    /// In memory (one instance). `newGuestsPerNetwork`: see `rations`.
    public init(newGuestsPerNetwork: Int = GuestLimits.newGuestsPerNetwork) {
        newGuests = Self.rations(newGuestsPerNetwork: newGuestsPerNetwork).map { (SlidingWindowLimiter($0.rule), $0) }
    }

    /// Counts one new guest of the party from `address`, or throws `.tooManyNewGuests` without counting it.
    public mutating func admitNewGuest(party: String, address: String, at now: Date) throws(PartyError) {
        for ration in newGuests {
            if let retry = ration.limiter.retryAfter(key: ration.ration.key(party, address), at: now) { throw .tooManyNewGuests(retryAfterSeconds: retry) }
        }
        for index in newGuests.indices { newGuests[index].limiter.record(key: newGuests[index].ration.key(party, address), at: now) }
    }

    /// Throws `.rateLimited` when `count` more adds do not all fit. Only adds that went in are counted
    /// (`recordAdds`), so a refused duplicate costs the guest nothing.
    public func checkAdds(_ count: Int, device: String, party: String, at now: Date) throws(PartyError) {
        let key = Self.key(device: device, party: party)
        try Self.checkAdds(count, left: addsByDevice.remaining(key: key, at: now), retryAfter: addsByDevice.retryAfter(key: key, at: now))
    }

    /// R18b: what `device` may still add in the party now, without spending any of it.
    public func addBudget(device: String, party: String, at now: Date) -> AddBudget {
        let (left, next) = addsByDevice.budget(key: Self.key(device: device, party: party), at: now)
        return AddBudget(addsLeft: left, nextAddInMs: next)
    }

    public mutating func recordAdds(_ count: Int, device: String, party: String, at now: Date) {
        addsByDevice.record(key: Self.key(device: device, party: party), at: now, count: count)
    }

    /// Counts one like or veto toggle, or throws `.rateLimited` without counting it.
    public mutating func admitLike(device: String, party: String, at now: Date) throws(PartyError) {
        if let retry = likesByDevice.take(key: Self.key(device: device, party: party), at: now) { throw .rateLimited(retryAfterSeconds: retry) }
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
