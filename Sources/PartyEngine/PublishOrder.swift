import Foundation

/// Events reach the hub in the order their transactions committed, so a stream's ids only grow, though
/// each writer publishes after it let go of the state lock. A writer draws a ticket while it still holds that lock
/// (commit order) and publishes when its turn comes; it waits without holding the state lock, so other requests go
/// on meanwhile. Every ticket drawn must be used (`PartyService.withState` does so in a `defer`).
/// `@unchecked Sendable`: both counters are guarded by `condition`.
final class PublishOrder: @unchecked Sendable {
    private let condition = NSCondition()
    private var drawn: UInt64 = 0
    private var serving: UInt64 = 0

    func ticket() -> UInt64 {
        condition.lock()
        defer { condition.unlock() }
        drawn += 1
        return drawn - 1
    }

    /// Runs `body` once every earlier ticket has run, then lets the next one go.
    func inTurn(_ ticket: UInt64, _ body: () -> Void) {
        condition.lock()
        while serving != ticket { condition.wait() }
        condition.unlock()
        body()
        condition.lock()
        serving += 1
        condition.broadcast()
        condition.unlock()
    }
}
