import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
import ClientNetwork
#endif

/// What libmicrohttpd does not bound by itself: connections per network prefix, and the total time a request
/// head may take. Called from its threads (accept policy, connection notifications, the access handler) and
/// from a once-a-second sweep; all state sits in one `Mutex`.
final class ConnectionGuard: Sendable {
    private struct Tracked {
        let socket: Int32
        let prefix: AddressPrefix?
        /// Uptime nanoseconds by which the current request head must be complete; nil once it is.
        var headDeadline: UInt64?
    }

    private struct State {
        var perPrefix: [AddressPrefix: Int] = [:]
        var connections: [UInt: Tracked] = [:]
        /// Event streams libmicrohttpd handed over (`handOver`): their connections are no longer its, but they still
        /// count, against their prefix and against the total.
        var handedOver = 0
    }

    /// Connections one prefix may hold at once; 0: no limit.
    let perPrefixLimit: Int
    /// Connections open at once, libmicrohttpd's and the handed-over streams together; 0: no limit (libmicrohttpd
    /// counts only its own).
    let totalLimit: Int
    /// A connection's first head must be complete this long after accept.
    let headDeadline: UInt64
    /// A later head on a kept-alive connection: the idle timeout decides how long it waits for the first
    /// byte, then the head deadline applies (a head can start no later than the idle timeout).
    let nextHeadDeadline: UInt64
    private let state = Mutex(State())

    init(perPrefixLimit: Int, totalLimit: Int = 0, headDeadline: TimeInterval, idleTimeout: TimeInterval) {
        self.perPrefixLimit = perPrefixLimit
        self.totalLimit = totalLimit
        self.headDeadline = UInt64(headDeadline * 1e9)
        nextHeadDeadline = UInt64((idleTimeout + headDeadline) * 1e9)
    }

    /// The accept policy: counts the connection against its prefix, or refuses it when the prefix is full.
    /// libmicrohttpd asks after its per-address check; the count is returned in `closed`. (Between the two,
    /// 0.9.75 drops a connection unnotified only when out of memory: the count then stays one too high.)
    func admit(_ prefix: AddressPrefix?) -> Bool {
        state.withLock { state in
            if totalLimit > 0 && state.connections.count + state.handedOver >= totalLimit { return false }
            guard let prefix else { return true }
            let count = state.perPrefix[prefix, default: 0]
            if perPrefixLimit > 0 && count >= perPrefixLimit { return false }
            state.perPrefix[prefix] = count + 1
            return true
        }
    }

    /// Connections open now.
    var openCount: Int { state.withLock { $0.connections.count + $0.handedOver } }

    /// An event stream took the connection's socket and libmicrohttpd closes its side: the connection keeps counting
    /// until the stream calls the returned release (once).
    func handOver(_ connection: OpaquePointer) -> @Sendable () -> Void {
        let prefix = state.withLock { state -> AddressPrefix? in
            state.handedOver += 1
            return state.connections.removeValue(forKey: UInt(bitPattern: connection))?.prefix
        }
        return { [self] in
            state.withLock { state in
                state.handedOver -= 1
                guard let prefix, let count = state.perPrefix[prefix] else { return }
                state.perPrefix[prefix] = count > 1 ? count - 1 : nil
            }
        }
    }

    /// MHD_CONNECTION_NOTIFY_STARTED: the clock for the first head starts.
    func opened(_ connection: OpaquePointer, socket: Int32, prefix: AddressPrefix?) {
        let deadline = DispatchTime.now().uptimeNanoseconds + headDeadline
        state.withLock { $0.connections[UInt(bitPattern: connection)] = Tracked(socket: socket, prefix: prefix, headDeadline: deadline) }
    }

    /// The access handler's first call for a request: its head is complete.
    func headCompleted(_ connection: OpaquePointer) {
        state.withLock { $0.connections[UInt(bitPattern: connection)]?.headDeadline = nil }
    }

    /// A response was sent and the connection may carry another request.
    func requestCompleted(_ connection: OpaquePointer) {
        let deadline = DispatchTime.now().uptimeNanoseconds + nextHeadDeadline
        state.withLock { $0.connections[UInt(bitPattern: connection)]?.headDeadline = deadline }
    }

    /// MHD_CONNECTION_NOTIFY_CLOSED. libmicrohttpd closes the socket after this returns, so a sweep holding the
    /// lock never shuts down a descriptor number that was already reused.
    func closed(_ connection: OpaquePointer) {
        state.withLock { state in
            guard let tracked = state.connections.removeValue(forKey: UInt(bitPattern: connection)),
                  let prefix = tracked.prefix, let count = state.perPrefix[prefix] else { return }
            state.perPrefix[prefix] = count > 1 ? count - 1 : nil
        }
    }

    /// Shuts down the sockets of heads past their deadline; libmicrohttpd sees the end of the stream on its
    /// next read and closes the connection on its own thread.
    func sweep(now: UInt64 = DispatchTime.now().uptimeNanoseconds) {
        state.withLock { state in
            for (key, tracked) in state.connections {
                guard let deadline = tracked.headDeadline, deadline < now else { continue }
                shutdown(tracked.socket, Int32(SHUT_RDWR))
                state.connections[key]?.headDeadline = nil
            }
        }
    }

    /// Connections the prefix holds now.
    func count(of prefix: AddressPrefix) -> Int {
        state.withLock { $0.perPrefix[prefix, default: 0] }
    }
}
