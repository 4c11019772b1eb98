import Synchronization

/// Counts that take a database read, kept between the upkeep's reads so a scrape never waits for the database.
final class OperationalCounts: Sendable {
    /// Upkeep ticks (seconds) between two reads.
    static let interval = 10
    private let counts = Mutex((activeParties: 0, activeGuests: 0))

    func store(_ value: (activeParties: Int, activeGuests: Int)) { counts.withLock { $0 = value } }

    func read() -> (activeParties: Int, activeGuests: Int) { counts.withLock { $0 } }
}
