import Foundation

/// systemd's socket activation (sd_listen_fds(3)): systemd binds `musicvoting.socket` and passes it to each server it
/// starts as descriptor 3, with `LISTEN_FDS` (how many) and `LISTEN_PID` (whom they are for) in the environment.
/// Because systemd keeps the socket open while the binary is replaced, connections that arrive between the old
/// server's drain and the new one's start wait in the kernel's queue instead of being refused.
enum SocketActivation {
    /// `SD_LISTEN_FDS_START`: the first passed descriptor.
    static let firstDescriptor: Int32 = 3

    /// The passed socket, when the variables name this process (a child that inherited them from a server must not
    /// take a descriptor 3 that is not a socket for it). With several, the first: the server listens on one.
    static func listeningSocket(environment: [String: String], processIdentifier: Int32 = getpid()) -> Int32? {
        guard let owner = environment["LISTEN_PID"].flatMap({ Int32($0) }), owner == processIdentifier,
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1 else { return nil }
        return firstDescriptor
    }
}
