import Foundation
import Synchronization

/// Guests liking from threads of their own until `stop()`, each like from a new device and address (the per-guest
/// limits stay out of the way), each on a connection of its own, as phones send them. A like answered 200 is
/// acknowledged. Any other answer, or none (a refused or reset connection, a timeout), is a failure: the storm does
/// not retry, so every failure a server or nginx could have spared the guest is counted. A like sends `liked: true`,
/// which a page may repeat safely after a failure (R17).
final class LikeStorm: @unchecked Sendable {
    struct Like { let number: Int; let device: String }

    private struct State {
        var acknowledged: [Like] = []
        var failures: [String] = []
        var failureKinds: [String: Int] = [:]
        var attempted: [Int: Int] = [:]
        var stopping = false
    }

    private let state = Mutex(State())
    private let group = DispatchGroup()

    /// `@unchecked Sendable`: the threads and the test share only `state`, under its lock.
    /// `pause`: the time each thread waits after a like (0: as fast as the server answers).
    init(port: UInt16, base: String, songs: ClosedRange<Int>, threads: Int = 6, pause: TimeInterval = 0) {
        for thread in 0..<threads {
            group.enter()
            Thread { [self] in
                defer { group.leave() }
                var index = 0
                while !state.withLock({ $0.stopping }) {
                    index += 1
                    let number = songs.lowerBound + (index + thread) % songs.count
                    let device = "storm-\(thread)-\(index)"
                    let guest = HTTPClient(port: port, source: "127.\(70 + thread).\(index / 250 % 250).\(index % 250 + 1)")
                    state.withLock { $0.attempted[number, default: 0] += 1 }
                    let json: [String: Any] = ["uri": "demo:track:\(number)", "deviceId": device, "liked": true]
                    do {
                        let response = try guest.send("POST", base + "/track/vote", json: json)
                        state.withLock { state in
                            if response.status == 200 {
                                state.acknowledged.append(Like(number: number, device: device))
                            } else {
                                state.failures.append("\(device): \(response)")
                                state.failureKinds["\(response.status) \(response.error ?? "-")", default: 0] += 1
                            }
                        }
                    } catch {
                        state.withLock { state in
                            state.failures.append("\(device): no answer (\(error))")
                            state.failureKinds["no answer", default: 0] += 1
                        }
                    }
                    if pause > 0 { Thread.sleep(forTimeInterval: pause) }
                }
            }.start()
        }
    }

    var acknowledgedCount: Int { state.withLock { $0.acknowledged.count } }
    var acknowledged: [Like] { state.withLock { $0.acknowledged } }
    /// Likes answered with anything but 200, or not answered.
    var failures: [String] { state.withLock { $0.failures } }
    var attempted: [Int: Int] { state.withLock { $0.attempted } }
    /// The failures by kind (`status error-code`, or `no answer`), most frequent first, with the first failure's text:
    /// for expectation messages.
    var failureSummary: String {
        state.withLock { state in
            let kinds = state.failureKinds.sorted { $0.value > $1.value }.map { "\($0.key): \($0.value)" }
            let tried = state.attempted.values.reduce(0, +)
            return "\(state.acknowledged.count) of \(tried) acknowledged; failures [\(kinds.joined(separator: ", "))]"
                + (state.failures.first.map { ", first: \($0.prefix(300))" } ?? "")
        }
    }

    /// Ends the storm and waits for the likes in flight. Safe to repeat.
    func stop() {
        state.withLock { $0.stopping = true }
        group.wait()
    }
}
