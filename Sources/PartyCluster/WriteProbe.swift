import Foundation
import PartyStore

/// Whether a shared PostgreSQL database takes a write now, asked on a session of its own so that the answer never
/// waits behind the party service's statements. `txid_current()` assigns a transaction id: it fails where a write
/// would (a server that is down, hung, or read-only in recovery) and writes nothing.
/// `@unchecked Sendable`: not thread-safe by itself; its one caller is the readiness thread.
public final class WriteProbe: @unchecked Sendable {
    /// A probe that gets no answer within this counts as a failure (a hung server would otherwise hold it forever).
    static let answerDeadline: TimeInterval = 1
    private let connection: PostgreSQLConnection

    public init(url: String) throws {
        connection = try PostgreSQLConnection(url: url, applicationName: "musicvoting-readiness-\(getpid())")
        connection.answerDeadline = Self.answerDeadline
    }

    /// One probe: reconnects first when the session was lost (a database restart ends it).
    public func canWrite() -> Bool {
        if !connection.isConnected, !connection.reset() { return false }
        do {
            try connection.run("SELECT txid_current() AS id", [])
            return true
        } catch {
            return false
        }
    }
}
