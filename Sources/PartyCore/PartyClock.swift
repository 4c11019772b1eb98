import Foundation

/// The source of "now" for every time-based rule, injected so tests never sleep.
public protocol PartyClock: Sendable {
    func now() -> Date
}

/// Wall-clock time.
public struct SystemClock: PartyClock {
    public init() {}
    public func now() -> Date { Date() }
}
