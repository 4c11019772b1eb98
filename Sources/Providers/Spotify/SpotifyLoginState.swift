import Foundation

/// The OAuth `state`: signed (HMAC-SHA-256 with a per-process key) so it cannot be forged, and single-use
/// (its nonce is forgotten once redeemed, or after 10 minutes). It carries the party and the source
/// (web or ios), and keys the PKCE verifier kept here. `@unchecked Sendable`: `lock` guards `pending`.
public final class SpotifyLoginState: @unchecked Sendable {
    public struct Login: Equatable, Sendable {
        public let partyId: String
        public let source: String
        public let installationId: String?
        public let verifier: String
    }

    public enum Failure: Error, Equatable { case invalid }

    static let lifetime: TimeInterval = 600
    private let key = Digest.randomBytes(32)
    private let lock = NSLock()
    private var pending: [String: (login: Login, expires: Date)] = [:]

    public init() {}

    /// A new state and its PKCE code challenge (S256).
    public func begin(partyId: String, source: String, installationId: String?, now: Date = Date()) -> (state: String, challenge: String) {
        let nonce = Digest.base64URL(Digest.randomBytes(16))
        let verifier = Digest.base64URL(Digest.randomBytes(48))
        let payload = [nonce, partyId, source, installationId ?? ""].joined(separator: "~")
        let signature = Digest.base64URL(Digest.hmacSHA256(key: key, Array(payload.utf8)))
        lock.lock()
        pending = pending.filter { $0.value.expires > now }
        pending[nonce] = (Login(partyId: partyId, source: source, installationId: installationId, verifier: verifier),
                          now.addingTimeInterval(Self.lifetime))
        lock.unlock()
        return (Digest.base64URL(Array(payload.utf8)) + "." + signature,
                Digest.base64URL(Digest.sha256(Array(verifier.utf8))))
    }

    /// The login a state stands for, once: forged, expired or replayed states fail.
    public func redeem(_ state: String, now: Date = Date()) throws(Failure) -> Login {
        let parts = state.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let payload = Digest.fromBase64URL(String(parts[0])),
              let signature = Digest.fromBase64URL(String(parts[1])),
              Digest.constantTimeEqual(signature, Digest.hmacSHA256(key: key, payload)) else { throw .invalid }
        let fields = String(decoding: payload, as: UTF8.self).split(separator: "~", omittingEmptySubsequences: false)
        guard fields.count == 4 else { throw .invalid }
        lock.lock()
        defer { lock.unlock() }
        guard let entry = pending.removeValue(forKey: String(fields[0])), entry.expires > now,
              entry.login.partyId == fields[1], entry.login.source == fields[2] else { throw .invalid }
        return entry.login
    }
}
