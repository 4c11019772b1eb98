import Foundation

/// Where a test's party lives ("the end-to-end suite also passes with plain round-robin over 3 instances").
package enum Deployment: Sendable {
    /// One instance of the binary on its own SQLite file: what the README's first command runs.
    case single
    /// Three instances on one PostgreSQL database, Debian's nginx in front with plain round-robin: every request and
    /// every stream of the test may land on another instance.
    case roundRobinCluster

    @TaskLocal package static var current: Deployment = .single
}

/// Whether a test started a party with `TestParty.given` (its first run says whether a second one makes sense).
package final class GivenCalls: @unchecked Sendable {
    @TaskLocal package static var current: GivenCalls?
    private let lock = NSLock()
    private var count = 0

    package init() {}

    package var happened: Bool { lock.withLock { count > 0 } }
    package func record() { lock.withLock { count += 1 } }
}
