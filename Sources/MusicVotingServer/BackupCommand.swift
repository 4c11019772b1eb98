import Foundation
import PartyStore

/// `musicvoting backup FILE [options]` and `musicvoting restore FILE [options]`: the SQLite database of the data
/// folder the same options (`--data`, `--config`, `MUSICVOTING_DATA`) name for the server. A backup runs while the
/// server does; a restore only while no server uses the folder.
public struct BackupCommand {
    public enum Action: String {
        case backup
        case restore
    }

    public struct Failure: Error, CustomStringConvertible {
        public let description: String
        /// 2: the command line is wrong; 1: the backup or restore failed.
        public let status: Int32
    }

    let action: Action
    let file: String
    let configuration: Configuration

    /// Kept beside the database by a restore: what the folder held before, until the next restore.
    static let previousSuffix = ".before-restore"

    public init(action: Action, arguments: [String], environment: [String: String]) throws(Failure) {
        guard let file = arguments.first, !file.hasPrefix("-") else {
            throw Failure(description: "usage: musicvoting \(action.rawValue) FILE [--data DIR | --config FILE]", status: 2)
        }
        do { configuration = try Configuration.parse(arguments: Array(arguments.dropFirst()), environment: environment) } catch {
            throw Failure(description: error.description, status: 2)
        }
        guard configuration.databaseURL == nil else {
            throw Failure(description: "--database names PostgreSQL: back it up with pg_dump and restore it with pg_restore (docs/operations.md).", status: 2)
        }
        self.action = action
        self.file = file
    }

    var databasePath: String { configuration.dataDirectory + "/musicvoting.sqlite" }

    /// Runs it; the sentence to print on success.
    public func run() throws(Failure) -> String {
        switch action {
        case .backup: return try backup()
        case .restore: return try restore()
        }
    }

    private func backup() throws(Failure) -> String {
        do { try SQLiteBackup.copy(databasePath: databasePath, to: file) } catch {
            throw Failure(description: "Backup failed: \(error.description)", status: 1)
        }
        let size = (try? FileManager.default.attributesOfItem(atPath: file)[.size] as? Int) ?? 0
        return "Backup of \(databasePath) written to \(file) (\(size) bytes, integrity check ok)."
    }

    private func restore() throws(Failure) -> String {
        let verdict: String
        do { verdict = try SQLiteBackup.integrityCheck(path: file) } catch {
            throw Failure(description: "Cannot restore \(file): \(error.description)", status: 1)
        }
        guard verdict == "ok", SQLiteBackup.isPartyDatabase(path: file) else {
            throw Failure(description: "Cannot restore \(file): not a sound MusicVoting database (\(verdict)).", status: 1)
        }
        let lock: DataFolderLock?
        do {
            try StartupError.checkDataFolder(configuration.dataDirectory)
            lock = try DataFolderLock(folder: configuration.dataDirectory, mode: .exclusive)
        } catch {
            throw Failure(description: error.description, status: 1)
        }
        guard let lock else {
            throw Failure(description: "A server is running on \(configuration.dataDirectory): stop it first (its drain keeps every acknowledged like), then restore.", status: 1)
        }
        return try withExtendedLifetime(lock) { () throws(Failure) -> String in
            try install()
        }
    }

    /// Under the exclusive lock: the current database, made whole, moves aside; the backup's copy takes its place.
    private func install() throws(Failure) -> String {
        let incoming = databasePath + ".restoring"
        do {
            try SQLiteBackup.foldLog(databasePath: databasePath)
            unlink(incoming)
            try FileManager.default.copyItem(atPath: file, toPath: incoming)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: incoming)
            for suffix in ["-wal", "-shm"] { unlink(databasePath + suffix) }
            if FileManager.default.fileExists(atPath: databasePath) {
                unlink(databasePath + Self.previousSuffix)
                guard rename(databasePath, databasePath + Self.previousSuffix) == 0 else { throw posixError() }
            }
            guard rename(incoming, databasePath) == 0 else { throw posixError() }
        } catch {
            throw Failure(description: "Restore failed: \(error)", status: 1)
        }
        let kept = FileManager.default.fileExists(atPath: databasePath + Self.previousSuffix)
            ? " The database it replaced is kept as \(databasePath + Self.previousSuffix)." : ""
        return "Restored \(file) into \(databasePath).\(kept)"
    }

    private func posixError() -> POSIXError { POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
}
