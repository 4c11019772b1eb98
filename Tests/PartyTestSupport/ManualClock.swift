import Foundation
import PartyCore

/// The party clock, moved by the test: the server's idea of "now" without sleeping.
/// `@unchecked Sendable`: `lock` guards `current`.
package final class ManualClock: PartyClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date

    package init(_ start: Date = Date(timeIntervalSince1970: 1_800_000_000)) { current = start }

    package func now() -> Date { lock.withLock { current } }

    package func advance(by seconds: TimeInterval) { lock.withLock { current += seconds } }
}
