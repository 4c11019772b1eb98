import Foundation

/// How long a test waits for a state it polls for: generous, as two shared cores running suites in parallel can
/// stall a process for seconds. A passing wait ends as soon as the state is there.
public let patience: TimeInterval = 15

/// Polls `condition` until it holds or the timeout passes.
public func eventually(timeout: TimeInterval = patience, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while Date() < deadline {
        if try condition() { return true }
        Thread.sleep(forTimeInterval: 0.05)
    }
    return try condition()
}
