import Foundation
import PartyStore
import Providers

/// The Spotify provider's OAuth states in the database several instances share.
extension ClusterLogins: LoginNonces {
    public func signingKey(proposing proposal: [UInt8]) throws -> [UInt8] {
        let kept = try key(named: "spotify-oauth-state", proposing: Data(proposal).base64EncodedString())
        guard let key = Data(base64Encoded: kept) else { throw DatabaseError(code: 0, message: "the OAuth key is not base64", sqlState: "") }
        return Array(key)
    }

    public func keep(nonce: String, login: SpotifyLoginState.Login, pool: String, expiresAt: Date, perParty: Int, capacity: Int, at now: Date) throws {
        try keepState(nonce: nonce, Pending(partyId: login.partyId, source: login.source, installationId: login.installationId,
                                       verifier: login.verifier, expiresAt: expiresAt),
                 pool: pool, perParty: perParty, capacity: capacity, at: now)
    }

    /// A count of every instance's states (a test's view; the instances never ask).
    public var pendingCount: Int {
        (try? run("SELECT count(*) AS pending FROM oauth_states", []).first?.integer("pending")).flatMap { $0 }.map { Int($0) } ?? 0
    }

    public func take(nonce: String) throws -> (SpotifyLoginState.Login, Date)? {
        try takeState(nonce: nonce).map { pending in
            (SpotifyLoginState.Login(partyId: pending.partyId, source: pending.source, installationId: pending.installationId,
                                     verifier: pending.verifier), pending.expiresAt)
        }
    }
}
