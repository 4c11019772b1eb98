import Foundation
import PartyCore
import PartyStore

/// R24a: `musicvoting host-link PARTY [server options]`, for a host who lost every phone. On the server's console (who
/// may read its database is trusted) it writes a one-time token into the party's database and prints a host page
/// link with it; the running server redeems it for a new host PIN and host token (`host-recovery`), so its caches
/// never see a PIN change they did not make. PARTY is the guest PIN the TV shows, or the party's id.
public enum HostRecoveryLink {
    public static let usage = "usage: musicvoting host-link GUEST-PIN|PARTY-ID [the server's options: --data DIR, --database URL, --public-url URL, --port N, --config FILE]"
    /// How long a link may wait to be opened.
    public static let lifetime: TimeInterval = 15 * 60

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
    }

    /// Makes the link; throws a sentence that says what to do.
    public static func make(arguments: [String], environment: [String: String], now: Date = Date()) throws -> String {
        guard let party = arguments.first, !party.hasPrefix("-"), party.utf8.count <= 64 else { throw Failure(description: usage) }
        let configuration = try Configuration.parse(arguments: Array(arguments.dropFirst()), environment: environment)
        if configuration.databaseURL == nil, !FileManager.default.fileExists(atPath: configuration.dataDirectory + "/musicvoting.sqlite") {
            throw Failure(description: "No MusicVoting database in \(configuration.dataDirectory): give the server's --data folder (or --config file).")
        }
        let store = try configuration.databaseURL.map(Application.openPostgreSQL) ?? Application.openSQLite(in: configuration.dataDirectory)
        let found = PinGenerator.isWellFormed(party) ? try store.activeParty(guestPin: party) : try store.party(id: party)
        guard let found, found.isActive else { throw Failure(description: "No active party has the guest PIN or id \(party).") }
        var random = SystemRandomNumberGenerator()
        let token = Identifiers.token(using: &random)
        try store.addHostRecovery(token: token, partyId: found.id, expiresAt: now.addingTimeInterval(lifetime))
        let host = configuration.host == "0.0.0.0" || configuration.host == "::" ? "127.0.0.1"
            : configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
        let base = configuration.publicURL ?? "\(configuration.tlsCertificatePath == nil ? "http" : "https")://\(host):\(configuration.port)"
        return "\(base)/host#party=\(found.id)&recovery=\(token)"
    }
}
