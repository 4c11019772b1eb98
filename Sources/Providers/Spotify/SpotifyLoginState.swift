import Foundation

/// The OAuth `state`: signed (HMAC-SHA-256 with a per-process key) so it cannot be forged, and single-use
/// (its nonce is forgotten once redeemed, or after 10 minutes). It carries the party and the source
/// (web or ios), and keys the PKCE verifier kept by `nonces`: this process's (`LocalLoginNonces`), or the
/// database several instances share, so the callback may reach another instance than the one the login began on.
public final class SpotifyLoginState: Sendable {
    public struct Login: Equatable, Sendable {
        public let partyId: String
        public let source: String
        public let installationId: String?
        public let verifier: String

        public init(partyId: String, source: String, installationId: String?, verifier: String) {
            self.partyId = partyId
            self.source = source
            self.installationId = installationId
            self.verifier = verifier
        }
    }

    public enum Failure: Error, Equatable { case invalid }

    static let lifetime: TimeInterval = 600
    public static let perParty = 8
    public static let capacity = 10_000
    private let key: [UInt8]
    private let nonces: any LoginNonces

    /// The states of this process alone, signed with a key of its own.
    public convenience init() {
        self.init(key: Digest.randomBytes(32), nonces: LocalLoginNonces())
    }

    /// States kept by `nonces`, signed with the key it keeps (the same on every instance that shares it).
    public convenience init(nonces: any LoginNonces) throws {
        self.init(key: try nonces.signingKey(proposing: Digest.randomBytes(32)), nonces: nonces)
    }

    private init(key: [UInt8], nonces: any LoginNonces) {
        self.key = key
        self.nonces = nonces
    }

    public var pendingCount: Int { nonces.pendingCount }

    /// A new state and its PKCE code challenge (S256). `byHost`: the request proved the host's PIN or token.
    public func begin(partyId: String, source: String, installationId: String?, byHost: Bool = false,
                      now: Date = Date()) throws -> (state: String, challenge: String) {
        let pool = byHost ? partyId + "|host" : partyId
        let nonce = Digest.base64URL(Digest.randomBytes(16))
        let verifier = Digest.base64URL(Digest.randomBytes(48))
        let payload = [nonce, partyId, source, installationId ?? ""].joined(separator: "~")
        let signature = Digest.base64URL(Digest.hmacSHA256(key: key, Array(payload.utf8)))
        let state = (Digest.base64URL(Array(payload.utf8)) + "." + signature, Digest.base64URL(Digest.sha256(Array(verifier.utf8))))
        try nonces.keep(nonce: nonce, login: Login(partyId: partyId, source: source, installationId: installationId, verifier: verifier),
                        pool: pool, expiresAt: now.addingTimeInterval(Self.lifetime), perParty: Self.perParty, capacity: Self.capacity, at: now)
        return state
    }

    /// The login a state stands for, once: forged, expired or replayed states fail with `Failure.invalid`; a shared
    /// database that cannot be asked throws its own error.
    public func redeem(_ state: String, now: Date = Date()) throws -> Login {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Digest.fromBase64URL(String(parts[0])),
              let signature = Digest.fromBase64URL(String(parts[1])),
              Digest.constantTimeEqual(signature, Digest.hmacSHA256(key: key, payload)) else { throw Failure.invalid }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "~", omittingEmptySubsequences: false)
        guard fields.count == 4 else { throw Failure.invalid }
        guard let (login, expires) = try nonces.take(nonce: String(fields[0])), expires > now,
              login.partyId == fields[1], login.source == fields[2] else { throw Failure.invalid }
        return login
    }
}

/// Where pending OAuth states are kept (single use, `perParty` newest per pool and `capacity` in all) with the one
/// key that signs them: this process (`LocalLoginNonces`), or the database several instances share.
public protocol LoginNonces: AnyObject, Sendable {
    /// The key to sign with: the one already kept, else `proposal` (kept from now on).
    func signingKey(proposing proposal: [UInt8]) throws -> [UInt8]
    /// Keeps a pending login; `pool` (the party, or its host's logins apart) keeps its `perParty` newest.
    func keep(nonce: String, login: SpotifyLoginState.Login, pool: String, expiresAt: Date, perParty: Int, capacity: Int, at now: Date) throws
    /// The login kept under `nonce`, removed (single use), with its expiry; nil when none is.
    func take(nonce: String) throws -> (SpotifyLoginState.Login, Date)?
    /// The states kept now.
    var pendingCount: Int { get }
}

/// The pending states of this process. Bounded (53,748 states in 50 s once, filtered in O(n) on every call): a
/// party keeps its `perParty` newest of the logins anybody began (the party's first login needs no PIN) and, apart,
/// its `perParty` newest of the logins its host began, so guests never push the host's out; the server keeps its
/// `capacity` newest, and expired ones leave from the front of a queue in insertion (= expiry) order.
/// `@unchecked Sendable`: `lock` guards the state.
public final class LocalLoginNonces: LoginNonces, @unchecked Sendable {
    private let lock = NSLock()
    private var pending: [String: (login: SpotifyLoginState.Login, expires: Date, pool: String)] = [:]
    /// Nonces in the order they were made; a nonce already redeemed or dropped is skipped when it comes up.
    private var order: [String] = []
    private var orderStart = 0
    private var perPartyNonces: [String: [String]] = [:]

    public init() {}

    /// This process's own key.
    public func signingKey(proposing proposal: [UInt8]) throws -> [UInt8] { proposal }

    public var pendingCount: Int {
        lock.lock()
        defer { lock.unlock() }
        return pending.count
    }

    public func keep(nonce: String, login: SpotifyLoginState.Login, pool: String, expiresAt: Date, perParty: Int, capacity: Int, at now: Date) {
        lock.lock()
        defer { lock.unlock() }
        dropExpired(at: now)
        if let ofPool = perPartyNonces[pool], ofPool.count >= perParty { forget(ofPool[0]) }
        while pending.count >= capacity, orderStart < order.count {
            forget(order[orderStart])
            orderStart += 1
        }
        pending[nonce] = (login, expiresAt, pool)
        perPartyNonces[pool, default: []].append(nonce)
        order.append(nonce)
    }

    public func take(nonce: String) -> (SpotifyLoginState.Login, Date)? {
        lock.lock()
        defer { lock.unlock() }
        return forget(nonce).map { ($0.login, $0.expires) }
    }

    /// Drops expired states from the front of the queue; compacts the queue now and then. Called under `lock`.
    private func dropExpired(at now: Date) {
        while orderStart < order.count {
            let nonce = order[orderStart]
            if let entry = pending[nonce], entry.expires > now { break }
            forget(nonce)
            orderStart += 1
        }
        if orderStart > 1_024 && orderStart * 2 > order.count {
            order.removeFirst(orderStart)
            orderStart = 0
        }
    }

    /// Forgets a pending state (redeemed, expired or pushed out); the queue skips it later. Called under `lock`.
    @discardableResult
    private func forget(_ nonce: String) -> (login: SpotifyLoginState.Login, expires: Date, pool: String)? {
        guard let entry = pending.removeValue(forKey: nonce) else { return nil }
        perPartyNonces[entry.pool]?.removeAll { $0 == nonce }
        if perPartyNonces[entry.pool]?.isEmpty == true { perPartyNonces[entry.pool] = nil }
        return entry
    }
}
