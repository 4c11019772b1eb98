import Foundation

/// SIGINT/SIGTERM for a clean shutdown. Install before announcing the port, so a signal sent right
/// after the announcement is never ignored.
public final class ShutdownSignals: @unchecked Sendable {
    private let received = DispatchSemaphore(value: 0)
    private var sources: [any DispatchSourceSignal] = []

    public init() {
        for number in [SIGINT, SIGTERM] {
            // The dispatch source sees the signal only once the default action (terminate) is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [received] in received.signal() }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks until one of the signals arrives.
    public func wait() {
        received.wait()
        sources.forEach { $0.cancel() }
    }
}
