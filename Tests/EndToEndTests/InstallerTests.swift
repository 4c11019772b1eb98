import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// `musicvoting install` / `uninstall`, run below a temporary root (`--root`): the same files as on a
/// real system, without users or systemd.
@Suite("Install as a service")
struct InstallerTests {
    static func run(_ arguments: [String], binary: String = ServerProcess.binary) throws -> (status: Int32, output: String) {
        try runToExit(binary, arguments)
    }

    static func mode(_ path: String) throws -> Int {
        try #require(FileManager.default.attributesOfItem(atPath: path)[.posixPermissions] as? Int)
    }

    @Test func installPutsBinaryConfigDataAndUnitInPlaceAndUninstallKeepsTheData() throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("mv-install-\(UUID().uuidString)").path
        defer { try? FileManager.default.removeItem(atPath: root) }
        let installed = try Self.run(["install", "--root", root])
        #expect(installed.status == 0, "\(installed.output)")
        let binary = root + "/usr/local/bin/musicvoting"
        #expect(try Data(contentsOf: URL(fileURLWithPath: binary)) == Data(contentsOf: URL(fileURLWithPath: ServerProcess.binary)))
        #expect(try Self.mode(binary) == 0o755 && Self.mode(root + "/var/lib/musicvoting") == 0o700)
        let unit = try String(contentsOfFile: root + "/etc/systemd/system/musicvoting.service", encoding: .utf8)
        // A restart drains (SIGTERM), systemd waits past the drain's bound, and the socket is systemd's.
        for line in ["User=musicvoting", "ExecStart=/usr/local/bin/musicvoting --config /etc/musicvoting.conf",
                     "Restart=on-failure", "ReadWritePaths=/var/lib/musicvoting", "WantedBy=multi-user.target",
                     "KillSignal=SIGTERM", "TimeoutStopSec=15", "Requires=musicvoting.socket"] {
            #expect(unit.split(separator: "\n").contains(Substring(line)), "unit has \(line)")
        }
        let socketUnit = try String(contentsOfFile: root + "/etc/systemd/system/musicvoting.socket", encoding: .utf8)
        for line in ["ListenStream=0.0.0.0:8080", "WantedBy=sockets.target"] {
            #expect(socketUnit.split(separator: "\n").contains(Substring(line)), "socket unit has \(line)")
        }
        let config = try String(contentsOfFile: root + "/etc/musicvoting.conf", encoding: .utf8)
        #expect(config.contains("\ndata = /var/lib/musicvoting\n") && config.contains("\n# port = 8080\n"))

        // The installed binary starts on the installed config (its data folder pointed into the test root).
        let data = root + "/var/lib/musicvoting"
        let server = try ServerProcess(dataDirectory: data, arguments: ["--config", root + "/etc/musicvoting.conf", "--data", data])
        #expect(try server.client.get("/healthz").status == 200)
        server.stop()

        // systemd's own check of the unit (systemd-analyze ships with systemd, which Debian installs; it needs no
        // running systemd): a copy whose ExecStart names the binary below the root, no warning allowed.
        let checked = root + "/musicvoting.service"
        try Data(unit.replacingOccurrences(of: "ExecStart=/usr/local/bin/", with: "ExecStart=\(root)/usr/local/bin/").utf8)
            .write(to: URL(fileURLWithPath: checked))
        try Data(socketUnit.utf8).write(to: URL(fileURLWithPath: root + "/musicvoting.socket"))
        let verified = try Self.run(["verify", checked, root + "/musicvoting.socket"], binary: "/usr/bin/systemd-analyze")
        #expect(verified.status == 0 && verified.output.isEmpty, "\(verified.output)")

        // A second install keeps the host's edited config, and the socket and stop timeout follow it.
        let edited = "host = ::\nport = 9090\ndrain-seconds = 30\n"
        try Data(edited.utf8).write(to: URL(fileURLWithPath: root + "/etc/musicvoting.conf"))
        #expect(try Self.run(["install", "--root", root]).output.contains("Kept your /etc/musicvoting.conf"))
        #expect(try String(contentsOfFile: root + "/etc/musicvoting.conf", encoding: .utf8) == edited)
        let socketAgain = try String(contentsOfFile: root + "/etc/systemd/system/musicvoting.socket", encoding: .utf8)
        #expect(socketAgain.contains("\nListenStream=[::]:9090\nBindIPv6Only=both\n"), "\(socketAgain)")
        #expect(try String(contentsOfFile: root + "/etc/systemd/system/musicvoting.service", encoding: .utf8).contains("\nTimeoutStopSec=35\n"))

        try Data("party".utf8).write(to: URL(fileURLWithPath: data + "/keep-me"))
        let removed = try Self.run(["uninstall", "--root", root])
        #expect(removed.status == 0, "\(removed.output)")
        for gone in ["/usr/local/bin/musicvoting", "/etc/musicvoting.conf", "/etc/systemd/system/musicvoting.service",
                     "/etc/systemd/system/musicvoting.socket"] {
            #expect(!FileManager.default.fileExists(atPath: root + gone), "\(gone) removed")
        }
        #expect(FileManager.default.fileExists(atPath: data + "/keep-me") && FileManager.default.fileExists(atPath: data + "/musicvoting.sqlite"))
    }

    @Test func installingOnTheSystemWithoutRootRightsSaysHow() throws {
        guard geteuid() == 0 else {
            let result = try Self.run(["install"])
            #expect(result.status == 1 && result.output.contains("needs administrator rights"))
            return
        }
        // As root (CI), run a copy as nobody instead.
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-nobody-\(UUID().uuidString)").path
        try FileManager.default.createDirectory(atPath: folder, withIntermediateDirectories: true, attributes: [.posixPermissions: 0o755])
        defer { try? FileManager.default.removeItem(atPath: folder) }
        try FileManager.default.copyItem(atPath: ServerProcess.binary, toPath: folder + "/musicvoting")
        // The copy's file can still be open for writing in a child another test thread forked meanwhile (until that
        // child's exec): exec then fails with "Text file busy" for a moment.
        var result = try Self.run(["-u", "nobody", "--", folder + "/musicvoting", "install"], binary: "/usr/sbin/runuser")
        for _ in 0..<20 where result.output.contains("Text file busy") {
            Thread.sleep(forTimeInterval: 0.25)
            result = try Self.run(["-u", "nobody", "--", folder + "/musicvoting", "install"], binary: "/usr/sbin/runuser")
        }
        #expect(result.status == 1)
        #expect(result.output == "musicvoting: Installing needs administrator rights: run it with sudo (or give --root DIR to install below a folder).\n")
    }
}
