import Foundation

/// `DATA/musicvoting.lock`, flock(2)ed: a server holds it shared for as long as it runs, `musicvoting restore`
/// exclusively while it replaces the database. So a restore never swaps the file under a running server, and a
/// server never opens a half-restored one. The kernel drops the lock when the process ends, even by kill -9.
final class DataFolderLock {
    static let fileName = "musicvoting.lock"
    private let descriptor: Int32

    enum Mode {
        /// A server: several may hold it at once (flock's shared lock).
        case server
        /// A restore: alone.
        case exclusive
    }

    /// Nil when another process holds it in a conflicting mode; throws when the file cannot be opened.
    init?(folder: String, mode: Mode) throws(StartupError) {
        let path = folder + "/" + Self.fileName
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o600)
        guard descriptor >= 0 else { throw .dataFolder(path: folder, reason: StartupError.reason(errno: errno)) }
        guard flock(descriptor, (mode == .server ? LOCK_SH : LOCK_EX) | LOCK_NB) == 0 else {
            close(descriptor)
            return nil
        }
        self.descriptor = descriptor
    }

    deinit { close(descriptor) }
}
