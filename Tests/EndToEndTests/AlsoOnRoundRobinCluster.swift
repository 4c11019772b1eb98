import PartyTestSupport
import Testing

/// A suite trait: each test of the suite that starts its party with `TestParty.given` runs a second time, its party
/// then on the round-robin cluster. A test that starts its own server (a restart, a start-up error) runs once.
struct AlsoOnRoundRobinCluster: SuiteTrait, TestTrait, TestScoping {
    var isRecursive: Bool { true }

    func provideScope(for test: Test, testCase: Test.Case?, performing function: @Sendable () async throws -> Void) async throws {
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
    static var alsoOnRoundRobinCluster: Self { Self() }
}
