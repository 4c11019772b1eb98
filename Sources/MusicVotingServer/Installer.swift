import Foundation

/// `musicvoting install` / `uninstall`: the running binary to /usr/local/bin, a commented config
/// to /etc/musicvoting.conf, data in /var/lib/musicvoting and a systemd unit that runs it as the unprivileged
/// user `musicvoting`, restarting it on failure, on a listening socket systemd holds, so installing a new version
/// replaces the running one without a refused connection. `uninstall` removes binary, units and config and keeps
/// the data.
/// `--root DIR` does the same below DIR without touching users or systemd (packaging, tests).
public struct Installer {
    public enum Failure: Error, CustomStringConvertible {
        case usage(String)
        case needsRoot
        case step(String)
        public var description: String {
            switch self {
            case .usage(let text): return text
            case .needsRoot: return "Installing needs administrator rights: run it with sudo (or give --root DIR to install below a folder)."
            case .step(let text): return text
            }
        }
    }

    static let binaryPath = "/usr/local/bin/musicvoting"
    static let configPath = "/etc/musicvoting.conf"
    static let dataPath = "/var/lib/musicvoting"
    static let unitPath = "/etc/systemd/system/musicvoting.service"
    static let socketPath = "/etc/systemd/system/musicvoting.socket"
    static let user = "musicvoting"

    let root: String
    /// Whether to create the user and talk to systemd: only for the real system.
    var system: Bool { root == "/" }
    private var say: (String) -> Void

    public init(arguments: [String], say: @escaping (String) -> Void = { print($0) }) throws(Failure) {
        var root = "/"
        var index = 0
        while index < arguments.count {
            guard arguments[index] == "--root", index + 1 < arguments.count else {
                throw .usage("usage: musicvoting install|uninstall [--root DIR]")
            }
            root = arguments[index + 1]
            index += 2
        }
        self.root = root == "/" ? "/" : URL(fileURLWithPath: root).standardizedFileURL.path
        self.say = say
    }

    func path(_ absolute: String) -> String { system ? absolute : root + absolute }

    public func install() throws(Failure) {
        if system && geteuid() != 0 { throw .needsRoot }
        let binary = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath().path
        try make(folder: (Self.binaryPath as NSString).deletingLastPathComponent, mode: 0o755)
        if binary != path(Self.binaryPath) {
            try run("copy \(binary) to \(path(Self.binaryPath))") {
                try? FileManager.default.removeItem(atPath: path(Self.binaryPath))
                try FileManager.default.copyItem(atPath: binary, toPath: path(Self.binaryPath))
                try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: path(Self.binaryPath))
            }
        }
        say("Installed \(Self.binaryPath)")
        try make(folder: (Self.configPath as NSString).deletingLastPathComponent, mode: 0o755)
        if FileManager.default.fileExists(atPath: path(Self.configPath)) {
            say("Kept your \(Self.configPath)")
        } else {
            try write(Self.configText, to: Self.configPath, mode: 0o644)
            say("Wrote \(Self.configPath) (every option, commented, with its default)")
        }
        if system { try createUser() }
        try make(folder: Self.dataPath, mode: 0o700)
        if system { try command("/bin/chown", [Self.user + ":" + Self.user, Self.dataPath]) }
        say("Data in \(Self.dataPath)")
        // The socket and the stop timeout follow the config's host, port and drain, as the server reads them.
        let configuration = (try? Configuration.parse(arguments: ["--config", path(Self.configPath)], environment: [:])) ?? Configuration()
        try make(folder: (Self.unitPath as NSString).deletingLastPathComponent, mode: 0o755)
        let socketText = Self.socketText(host: configuration.host, port: configuration.port)
        let socketChanged = (try? String(contentsOfFile: path(Self.socketPath), encoding: .utf8)) != socketText
        try write(socketText, to: Self.socketPath, mode: 0o644)
        say("Wrote \(Self.socketPath)")
        try write(Self.unitText(drainSeconds: configuration.drainSeconds), to: Self.unitPath, mode: 0o644)
        say("Wrote \(Self.unitPath)")
        if system && Self.hasSystemd {
            try command("/bin/systemctl", ["daemon-reload"])
            try command("/bin/systemctl", ["enable", Self.socketUnit, "musicvoting"])
            if socketChanged || !succeeds("/bin/systemctl", ["is-active", "--quiet", Self.socketUnit]) {
                // A new address (or an older install whose server bound the port itself): the socket can only be
                // bound once the server that holds the port stopped, so this once there is a short gap.
                try command("/bin/systemctl", ["stop", "musicvoting"])
                try command("/bin/systemctl", ["restart", Self.socketUnit])
            }
            // Restart, not start: after an update the old binary may still be running. Its drain answers what it
            // read while new connections wait in systemd's socket for the new binary.
            try command("/bin/systemctl", ["restart", "musicvoting"])
            say("Started: systemctl status musicvoting; open http://<this machine>:\(configuration.port)/")
        } else if system {
            say("No systemd here: start it with \(Self.binaryPath) --config \(Self.configPath)")
        }
    }

    public func uninstall() throws(Failure) {
        if system && geteuid() != 0 { throw .needsRoot }
        if system && Self.hasSystemd && FileManager.default.fileExists(atPath: Self.unitPath) {
            try? command("/bin/systemctl", ["disable", "--now", "musicvoting", Self.socketUnit])
        }
        for file in [Self.unitPath, Self.socketPath, Self.binaryPath, Self.configPath] where FileManager.default.fileExists(atPath: path(file)) {
            try run("remove \(path(file))") { try FileManager.default.removeItem(atPath: path(file)) }
            say("Removed \(file)")
        }
        if system && Self.hasSystemd { try? command("/bin/systemctl", ["daemon-reload"]) }
        say("Kept the data in \(Self.dataPath) (delete it yourself to remove every party)")
    }

    static var hasSystemd: Bool { FileManager.default.fileExists(atPath: "/run/systemd/system") }

    private func createUser() throws(Failure) {
        guard getpwnam(Self.user) == nil else { return }
        try command("/usr/sbin/useradd", ["--system", "--home-dir", Self.dataPath, "--no-create-home",
                                          "--shell", "/usr/sbin/nologin", Self.user])
        say("Created the system user \(Self.user)")
    }

    private func make(folder: String, mode: Int) throws(Failure) {
        try run("create \(path(folder))") {
            try FileManager.default.createDirectory(atPath: path(folder), withIntermediateDirectories: true,
                                                    attributes: [.posixPermissions: mode])
        }
    }

    private func write(_ text: String, to file: String, mode: Int) throws(Failure) {
        try run("write \(path(file))") {
            try Data(text.utf8).write(to: URL(fileURLWithPath: path(file)), options: .atomic)
            try FileManager.default.setAttributes([.posixPermissions: mode], ofItemAtPath: path(file))
        }
    }

    private func run(_ what: String, _ body: () throws -> Void) throws(Failure) {
        do { try body() } catch {
            throw .step("Could not \(what) (\((error as NSError).localizedDescription)).")
        }
    }

    /// Whether a command exits 0 (a question to systemctl, not a step that must work).
    private func succeeds(_ executable: String, _ arguments: [String]) -> Bool {
        (try? command(executable, arguments)) != nil
    }

    private func command(_ executable: String, _ arguments: [String]) throws(Failure) {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        do { try process.run() } catch { throw .step("Could not run \(executable): \(error)") }
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw .step("\(executable) \(arguments.joined(separator: " ")) failed with exit code \(process.terminationStatus).")
        }
    }
}
