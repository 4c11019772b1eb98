import Foundation
import Testing

/// Where a test's party lives ("the end-to-end suite also passes with plain round-robin over 3 instances").
package enum Deployment: Sendable {
    /// One instance of the binary on its own SQLite file: what the README's first command runs.
    case single
    /// Three instances on one PostgreSQL database, Debian's nginx in front with plain round-robin: every request and
    /// every stream of the test may land on another instance.
    case roundRobinCluster

    @TaskLocal package static var current: Deployment = .single
}

/// A suite trait: each test of the suite that starts its party with `TestParty.given` runs a second time, its party
/// then on the round-robin cluster. A test that starts its own server (a restart, a start-up error) runs once.
package struct AlsoOnRoundRobinCluster: SuiteTrait, TestTrait, TestScoping {
    package var isRecursive: Bool { true }

    package func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
        guard testCase != nil else { return try await function() }
        let given = GivenCalls()
        try await GivenCalls.$current.withValue(given) { try await function() }
        guard given.happened else { return }
        print("◇ again on 3 instances behind round-robin nginx: \(test.name)")
        try await Deployment.$current.withValue(.roundRobinCluster) { try await function() }
    }
}

extension Trait where Self == AlsoOnRoundRobinCluster {
    /// See `AlsoOnRoundRobinCluster`.
    package static var alsoOnRoundRobinCluster: Self { Self() }
}

/// Whether a test started a party with `TestParty.given` (its first run says whether a second one makes sense).
package final class GivenCalls: @unchecked Sendable {
    @TaskLocal package static var current: GivenCalls?
    private let lock = NSLock()
    private var count = 0

    package var happened: Bool { lock.withLock { count > 0 } }
    package func record() { lock.withLock { count += 1 } }
}
