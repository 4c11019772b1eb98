import Foundation

/// Pairing a TV in one step (ours): the TV opens a pairing and shows its short `code`; the host
/// claims that code for a party from a phone; the TV, polling with the pairing's `secret` (which only it has),
/// then receives the party and a monitor token. The code alone (visible to the whole room) grants nothing.
/// A value type: the owner serializes access; time is passed in.
public struct TVPairings: Sendable {
    public static let codeLength = 6
    public static let lifetime: TimeInterval = 600

    public struct Pairing: Sendable, Equatable {
        public let code: String
        public let secret: String
        public let expiresAt: Date
        /// The network (IPv6 /64, IPv4 /24) the TV asked from: one network holds at most `perNetwork` pairings.
        public let network: String
        /// Set by the host's claim: the party and the monitor token minted for this TV.
        public fileprivate(set) var claim: Claim?

        /// A pairing as a shared store kept it.
        public init(code: String, secret: String, expiresAt: Date, network: String, claim: Claim?) {
            self.code = code
            self.secret = secret
            self.expiresAt = expiresAt
            self.network = network
            self.claim = claim
        }
    }

    public struct Claim: Sendable, Equatable {
        public let partyId: String
        public let monitorToken: String

        public init(partyId: String, monitorToken: String) {
            self.partyId = partyId
            self.monitorToken = monitorToken
        }
    }

    public enum Status: Sendable, Equatable {
        case waiting(expiresAt: Date)
        case paired(Claim)
        case unknown
    }

    /// At most this many pairings wait at once (each costs a few bytes), and at most `perNetwork` from one network.
    /// When all are taken, a TV from a network that holds fewer than the most-holding network takes the oldest
    /// pairing of that one, so many addresses of one network never keep a real TV from pairing.
    public let capacity: Int
    public let perNetwork: Int
    private var bySecret: [String: Pairing] = [:]

    public init(capacity: Int = 1_000, perNetwork: Int = 20) {
        self.capacity = capacity
        self.perNetwork = perNetwork
    }

    /// A new pairing with a code no waiting pairing has, or nil when `network` holds `perNetwork` pairings already,
    /// or all `capacity` are held by networks holding no more than it does (or no free code was drawn).
    public mutating func open<R: RandomNumberGenerator>(secret: String, network: String, at now: Date, using random: inout R) -> Pairing? {
        prune(at: now)
        let held = Dictionary(grouping: bySecret.values, by: \.network)
        let own = held[network]?.count ?? 0
        guard own < perNetwork else { return nil }
        if bySecret.count >= capacity {
            let most = held.values.map(\.count).max() ?? 0
            guard most > own + 1,
                  let oldest = held.values.filter({ $0.count == most }).joined().min(by: { $0.expiresAt < $1.expiresAt }) else { return nil }
            bySecret[oldest.secret] = nil
        }
        let taken = Set(bySecret.values.map(\.code))
        // At most `capacity` of a million codes are taken, so a few draws find a free one; bounded all the same.
        var code: String?
        for _ in 0..<64 where code == nil {
            let digits = String(Int.random(in: 0..<1_000_000, using: &random))
            let candidate = String(repeating: "0", count: Self.codeLength - digits.count) + digits
            if !taken.contains(candidate) { code = candidate }
        }
        guard let code else { return nil }
        let pairing = Pairing(code: code, secret: secret, expiresAt: now.addingTimeInterval(Self.lifetime), network: network, claim: nil)
        bySecret[secret] = pairing
        return pairing
    }

    /// The host's claim of `code` for a party: false when no unexpired, unclaimed pairing has that code.
    public mutating func claim(code: String, partyId: String, monitorToken: String, at now: Date) -> Bool {
        prune(at: now)
        guard Self.isWellFormed(code),
              let secret = bySecret.first(where: { $0.value.code == code && $0.value.claim == nil })?.key else { return false }
        bySecret[secret]?.claim = Claim(partyId: partyId, monitorToken: monitorToken)
        return true
    }

    /// What the TV learns when it asks with its secret. A paired pairing is handed out once, then forgotten.
    public mutating func status(secret: String, at now: Date) -> Status {
        prune(at: now)
        guard let pairing = bySecret[secret] else { return .unknown }
        guard let claim = pairing.claim else { return .waiting(expiresAt: pairing.expiresAt) }
        bySecret[secret] = nil
        return .paired(claim)
    }

    /// The pairing showing `code`, while it waits (for its QR code).
    public func waiting(code: String, at now: Date) -> Pairing? {
        bySecret.values.first { $0.code == code && $0.claim == nil && $0.expiresAt > now }
    }

    public var count: Int { bySecret.count }

    /// Every pairing held, for a shared store to keep.
    public var pairings: [Pairing] { Array(bySecret.values) }

    /// Pairings a shared store kept, with the same rules as a fresh value.
    public init(pairings: [Pairing], capacity: Int = 1_000, perNetwork: Int = 20) {
        self.init(capacity: capacity, perNetwork: perNetwork)
        for pairing in pairings { bySecret[pairing.secret] = pairing }
    }

    public static func isWellFormed(_ code: String) -> Bool {
        code.utf8.count == codeLength && code.utf8.allSatisfy { $0 >= 48 && $0 <= 57 }
    }

    private mutating func prune(at now: Date) {
        bySecret = bySecret.filter { $0.value.expiresAt > now }
    }
}
