import Foundation
import ClientNetwork

/// R11 and issue 10's vote stuffing: how often one guest may add and like, in each party. A `deviceId` is
/// the client's own choice, so every limit holds per device *and* per client address (an IPv6 /64 is one address): rotating device ids
/// (14,295 likes a minute in the attack pass) gains nothing beyond the address's share.
/// A value type: the owner serializes access; time is injected.
public struct GuestLimits: Sendable {
    /// R11: 10 adds per device per rolling minute; an address (a phone with several browsers) gets 20.
    public static let addsPerDevice = 10
    public static let addsPerAddress = 20
    /// Likes toggled per minute: a guest liking fast stays far below these.
    public static let likesPerDevice = 30
    public static let likesPerAddress = 60

    private var addsByDevice: SlidingWindowLimiter
    private var addsByAddress: SlidingWindowLimiter
    private var likesByDevice: SlidingWindowLimiter
    private var likesByAddress: SlidingWindowLimiter
    /// Whether the counts live in a shared database (issue 26).
    private let shared: Bool

    /// `shared`: counts shared by several instances (issue 26); nil: in memory.
    public init(shared: (any SharedLimits)? = nil) {
        self.shared = shared != nil
        addsByDevice = SlidingWindowLimiter(limit: Self.addsPerDevice, name: "adds-device", shared: shared)
        addsByAddress = SlidingWindowLimiter(limit: Self.addsPerAddress, name: "adds-address", shared: shared)
        likesByDevice = SlidingWindowLimiter(limit: Self.likesPerDevice, name: "likes-device", shared: shared)
        likesByAddress = SlidingWindowLimiter(limit: Self.likesPerAddress, name: "likes-address", shared: shared)
    }

    /// Throws `.rateLimited` when `count` more adds do not all fit. Only adds that went in are counted
    /// (`recordAdds`), so a refused duplicate costs the guest nothing.
    public func checkAdds(_ count: Int, device: String, address: String, party: String, at now: Date) throws(PartyError) {
        try Self.check(count, [(addsByDevice, party + "|" + device), (addsByAddress, party + "|" + AddressPrefix.device(of: address))], at: now)
    }

    public mutating func recordAdds(_ count: Int, device: String, address: String, party: String, at now: Date) {
        addsByDevice.record(key: party + "|" + device, at: now, count: count)
        addsByAddress.record(key: party + "|" + AddressPrefix.device(of: address), at: now, count: count)
    }

    /// Counts one like toggle, or throws `.rateLimited` without counting it.
    public mutating func admitLike(device: String, address: String, party: String, at now: Date) throws(PartyError) {
        if shared { return try admitSharedLike(device: device, address: address, party: party, at: now) }
        let deviceKey = party + "|" + device
        if let retry = likesByDevice.take(key: deviceKey, at: now) { throw .rateLimited(retryAfterSeconds: retry) }
        if let retry = likesByAddress.take(key: party + "|" + AddressPrefix.device(of: address), at: now) {
            likesByDevice.untake(key: deviceKey)
            throw .rateLimited(retryAfterSeconds: retry)
        }
    }

    /// Issue 26: a like counted in the shared database, checked and counted in one round trip (a like is the most
    /// frequent write). It changes nothing in this value, so the engine runs it before it takes its lock.
    public func admitSharedLike(device: String, address: String, party: String, at now: Date) throws(PartyError) {
        let keyed = [(likesByDevice, party + "|" + device), (likesByAddress, party + "|" + AddressPrefix.device(of: address))]
        if let retry = SlidingWindowLimiter.admit(1, keyed.map { (limiter: $0.0, key: $0.1) }, at: now) {
            throw .rateLimited(retryAfterSeconds: retry)
        }
    }

    private static func check(_ count: Int, _ limits: [(SlidingWindowLimiter, String)], at now: Date) throws(PartyError) {
        for (limiter, key) in limits { try check(count, limiter, key, at: now) }
    }

    private static func check(_ count: Int, _ limiter: borrowing SlidingWindowLimiter, _ key: String, at now: Date) throws(PartyError) {
        if limiter.remaining(key: key, at: now) < count {
            throw .rateLimited(retryAfterSeconds: limiter.retryAfter(key: key, at: now) ?? 60)
        }
    }
}
