import Foundation
import HTTPServer

/// What keeps the server from starting, as one plain sentence naming the path or port and what to do;
/// `musicvoting` prints it and exits with 1 (never a raw Foundation error dump).
public enum StartupError: Error, CustomStringConvertible {
    case dataFolder(path: String, reason: String)
    case database(path: String, reason: String)
    case databaseURL(String)
    case postgreSQL(url: String, reason: String)
    case musicFolder(path: String, reason: String)
    case tlsFile(option: String, path: String, reason: String)
    case listen(Server.StartError)
    case restoreRunning(path: String)

    public var description: String {
        switch self {
        case let .dataFolder(path, reason):
            return "Cannot use the data folder \(path) (\(reason)): create it and let this user write to it, or choose another with --data."
        case let .database(path, reason):
            return "Cannot open the database \(path) (\(reason)): check that this user may read and write it, or choose another folder with --data."
        case .databaseURL(let url):
            return "--database \(url) is not a PostgreSQL URL: give one like postgres://user@host:5432/musicvoting, or leave --database out to use SQLite in --data."
        case let .postgreSQL(url, reason):
            return "Cannot use the PostgreSQL database \(url) (\(reason)): check that the server runs, that the database exists and that it lets this user in, or leave --database out to use SQLite in --data."
        case let .musicFolder(path, reason):
            return "Cannot read the music folder \(path) (\(reason)): check the path given with --library and that this user may read it."
        case let .tlsFile(option, path, reason):
            return "Cannot read the TLS file \(path) (\(reason)): check the path given with \(option) and that this user may read it."
        case .listen(let error):
            return error.description
        case .restoreRunning(let path):
            return "The data folder \(path) is being restored (musicvoting restore): start the server once the restore has finished."
        }
    }

    static func reason(errno code: Int32) -> String { String(cString: strerror(code)) }

    /// A database URL fit for a message or a log: its password, if any, replaced by `***`.
    static func withoutPassword(_ url: URLComponents) -> String {
        var shown = url
        if shown.password != nil { shown.password = "***" }
        return shown.string ?? ""
    }
}

extension StartupError {
    /// The data folder exists (or was made) and this user may write there.
    static func checkDataFolder(_ path: String) throws(StartupError) {
        // mkdir -p by hand: Foundation's error for a file in the way is "NSCocoaErrorDomain error 512".
        var partial = path.hasPrefix("/") ? "" : "."
        for component in path.split(separator: "/") {
            partial += "/" + component
            if mkdir(partial, 0o700) != 0 && errno != EEXIST { throw .dataFolder(path: path, reason: reason(errno: errno)) }
        }
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw .dataFolder(path: path, reason: reason(errno: ENOTDIR))
        }
        guard access(path, W_OK | X_OK) == 0 else { throw .dataFolder(path: path, reason: reason(errno: errno)) }
    }

    /// The music folder is a folder this user may list.
    static func checkMusicFolder(_ path: String) throws(StartupError) {
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory) else {
            throw .musicFolder(path: path, reason: reason(errno: ENOENT))
        }
        guard isDirectory.boolValue else { throw .musicFolder(path: path, reason: reason(errno: ENOTDIR)) }
        guard access(path, R_OK | X_OK) == 0 else { throw .musicFolder(path: path, reason: reason(errno: errno)) }
    }

    static func readTLSFile(_ path: String, option: String) throws(StartupError) -> String {
        guard let data = FileManager.default.contents(atPath: path) else {
            let code = access(path, F_OK) == 0 ? EACCES : ENOENT
            throw .tlsFile(option: option, path: path, reason: reason(errno: code))
        }
        return String(decoding: data, as: UTF8.self)
    }
}
