import Foundation
import PartyEngine
import Synchronization

/// SIGINT/SIGTERM: the first asks for a drain (`wait` returns), a second one ends the process at once, for an
/// operator who will not wait. Install before announcing the port, so a signal sent right after the announcement
/// is never ignored.
public final class ShutdownSignals: @unchecked Sendable {
    /// The exit status after a second signal: the drain was cut short.
    public static let interruptedStatus: Int32 = 1
    private let received = DispatchSemaphore(value: 0)
    private let count = Atomic(0)
    private var sources: [any DispatchSourceSignal] = []

    public init() {
        for number in [SIGINT, SIGTERM] {
            // The dispatch source sees the signal only once the default action (terminate) is off.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                if count.wrappingAdd(1, ordering: .relaxed).newValue == 1 {
                    received.signal()
                    return
                }
                Log.info("second signal: exiting without waiting for the drain")
                Log.flush()
                _exit(Self.interruptedStatus)
            }
            source.resume()
            sources.append(source)
        }
    }

    /// Blocks until the first of the signals arrives; later ones still end the process.
    public func wait() {
        received.wait()
    }

    /// The drain's bound holds even if something in it hangs: past `seconds` the process ends unfinished.
    public func endProcess(after seconds: Int) {
        DispatchQueue.global().asyncAfter(deadline: .now() + .seconds(seconds)) {
            Log.error("drain: not finished within --drain-seconds \(seconds); exiting")
            Log.flush()
            _exit(Self.interruptedStatus)
        }
    }
}
