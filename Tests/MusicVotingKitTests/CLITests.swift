import Foundation
import Testing
import TestSupport
@testable import MusicVotingKit

/// `musicvoting-cli` driven through a real terminal: tmux `send-keys` and `capture-pane`.
@Suite("musicvoting-cli in a terminal", .serialized)
struct CLITests {
    /// tmux on a socket of the tests' own. Only `capture-pane` is read: the server that `new-session` starts would
    /// inherit a pipe and keep it open, so a read to its end would wait for the server to exit.
    @discardableResult
    static func tmux(_ arguments: [String]) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        // -u: UTF-8 whatever the locale of the machine running the tests (a CI shell may have none).
        process.arguments = ["-u", "-L", "musicvoting-tests"] + arguments
        process.standardInput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        guard arguments.first == "capture-pane" else {
            process.standardOutput = FileHandle.nullDevice
            try process.run()
            // The first `new-session` forks the tmux server, which keeps the descriptor Foundation waits on:
            // waiting for that client would wait for the server. Wait for the session to exist instead.
            if arguments.first == "new-session" { return "" }
            process.waitUntilExit()
            return ""
        }
        let output = Pipe()
        process.standardOutput = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return text
    }

    /// `musicvoting-cli --server … ARGUMENTS` in a new 120×45 tmux session (German, its own home): the session name.
    static func startCLI(_ server: KitServer, _ arguments: [String]) async throws -> String {
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mv-cli-\(UUID().uuidString)").path
        let session = "mv-cli-\(UUID().uuidString.prefix(8))"
        let command = "LANG=de_DE.UTF-8 MUSICVOTING_CLI_HOME=\(home) \(KitServer.built("musicvoting-cli")) --server \(server.base.absoluteString) "
            + arguments.joined(separator: " ")
        try tmux(["new-session", "-d", "-s", session, "-x", "120", "-y", "45", command])
        try await waitForSession(session)
        return session
    }

    static func waitForSession(_ name: String) async throws {
        let deadline = Date().addingTimeInterval(10)
        while Date() < deadline, try !hasSession(name) { try await Task.sleep(nanoseconds: 50_000_000) }
    }

    static func hasSession(_ name: String) throws -> Bool {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/tmux")
        process.arguments = ["-L", "musicvoting-tests", "has-session", "-t", name]
        process.standardInput = FileHandle.nullDevice
        process.standardOutput = FileHandle.nullDevice
        process.standardError = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus == 0
    }

    static func screen(_ session: String) -> String { (try? tmux(["capture-pane", "-p", "-t", session])) ?? "" }

    /// Polls the screen without blocking a thread of the (two-thread, on two cores) cooperative pool.
    static func waitFor(_ session: String, _ seconds: Double = 10, _ condition: (String) -> Bool) async throws -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if condition(screen(session)) { return true }
            try await Task.sleep(nanoseconds: 100_000_000)
        }
        return condition(screen(session))
    }

    @Test func aGuestJoinsSeesTheQueueUpdateLiveAndAddsASong() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let client = server.client()
        let created = try await client.createParty(provider: "demo")
        try await client.add(created.id, uri: "demo:track:1", deviceId: "a")
        try await client.add(created.id, uri: "demo:track:2", deviceId: "b")
        let session = try await Self.startCLI(server, ["join", created.pin])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }

        #expect(try await Self.waitFor(session) { $0.contains("PIN \(created.pin)") && $0.contains("1. ♡  0  Sonnenaufgang am Kanal") },
                "the queue: \(Self.screen(session))")
        // Another guest likes the second song: the terminal reorders live.
        _ = try await client.vote(created.id, uri: "demo:track:2", deviceId: "c")
        #expect(try await Self.waitFor(session) { $0.contains("1. ♡  1  Neon Boulevard") && $0.contains("2. ♡  0  Sonnenaufgang am Kanal") },
                "live update: \(Self.screen(session))")

        try Self.tmux(["send-keys", "-t", session, "Paper", "Enter"])
        #expect(try await Self.waitFor(session) { $0.contains("a1  Paper Planes at Noon") }, "search: \(Self.screen(session))")
        try Self.tmux(["send-keys", "-t", session, "a1", "Enter"])
        #expect(try await Self.waitFor(session) { $0.contains("Hinzugefügt!") && $0.contains("Paper Planes at Noon – ") })
        #expect(try await client.queue(created.id).map(\.name).contains("Paper Planes at Noon"), "the server has it")
        try Self.tmux(["send-keys", "-t", session, "l1", "Enter"])
        #expect(try await Self.waitFor(session) { $0.contains("1. ♥  2  Neon Boulevard") }, "liked from the keyboard: \(Self.screen(session))")
    }

    @Test func theHostDashboardInATerminalUnlocksLivePlaysSkipsAndRemoves() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let client = server.client()
        let created = try await client.createParty(provider: "demo")
        for number in 1...4 { try await client.add(created.id, uri: "demo:track:\(number)", deviceId: "g\(number)") }
        let session = try await Self.startCLI(server, ["host", created.hostPin])
        defer { _ = try? Self.tmux(["kill-session", "-t", session]) }

        #expect(try await Self.waitFor(session) { $0.contains("Als Erstes: Sonnenaufgang am Kanal") && $0.contains("(Kein Wiedergabegerät verbunden.") },
                "preview and the locked controls: \(Self.screen(session))")
        _ = try await server.client(hostPin: created.hostPin).registerMonitor(created.id, deviceId: "tv")
        #expect(try await Self.waitFor(session) { !$0.contains("(Kein Wiedergabegerät verbunden.") }, "unlocked live: \(Self.screen(session))")
        try Self.tmux(["send-keys", "-t", session, "p", "Enter"])
        #expect(try await Self.waitFor(session) { $0.contains("Läuft gerade: Sonnenaufgang am Kanal") && $0.contains("⏸") }, "\(Self.screen(session))")
        try Self.tmux(["send-keys", "-t", session, "s", "Enter"])
        #expect(try await Self.waitFor(session) { $0.contains("Läuft gerade: Neon Boulevard") }, "skipped: \(Self.screen(session))")
        try Self.tmux(["send-keys", "-t", session, "r 1", "Enter"])
        #expect(try await Self.waitFor(session) { !$0.contains("Tanz auf dem Dach") }, "removed: \(Self.screen(session))")
        #expect(try await client.queue(created.id).map(\.name) == ["Neon Boulevard", "Paper Planes at Noon"])
        // The TV never reports: the server stalls the song and the terminal says why.
        #expect(try await Self.waitFor(session, 15) { $0.contains("! Der Fernseher meldet sich nicht.") || $0.contains("! Kein Fernseher verbunden.") },
                "stall reason: \(Self.screen(session))")
    }

    @Test func oneShotCommandsForScripts() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mv-cli-\(UUID().uuidString)").path
        func cli(_ arguments: [String]) throws -> (Int32, String) { try server.cli(arguments, home: home) }
        #expect(try cli(["add", "Neon", "--pin", created.pin]) == (0, "Hinzugefügt! Neon Boulevard – Kasimir & The Tapes\n"))
        let (status, json) = try cli(["queue", "--json", "--pin", created.pin])
        let entries = try JSONDecoder().decode([QueueEntry].self, from: Data(json.utf8))
        #expect(status == 0 && entries.map(\.name) == ["Neon Boulevard"])
        #expect(try cli(["add", "Neon", "--pin", created.pin]) == (1, "musicvoting-cli: Song ist schon in der Warteschlange.\n"))
        #expect(try cli(["settings", "--veto", "0.4", "--host-pin", created.hostPin]) == (0, "fairQueue: off  vetoShare: 0.4  history: off  approval: off  nicknames: off\n"))
        #expect(try cli(["veto", "1", "--pin", created.pin]) == (1, "musicvoting-cli: Den eigenen Song kannst du nicht wegwählen.\n"))
        // One guest: nobody else could veto its song, so the line offers no veto (R17a).
        #expect(try cli(["queue", "--pin", created.pin]).1 == "♥ 0  Neon Boulevard – Kasimir & The Tapes  (in ~1 min)  ★\n")
        try await server.client().add(created.id, uri: "demo:track:5", deviceId: "someone")
        let (vetoed, vetoes) = try cli(["veto", "2", "--pin", created.pin])
        #expect(vetoed == 0 && vetoes.hasPrefix("⏭ 1/2  "), "R17a: at least two vetoes: \(vetoes)")
        #expect(try cli(["ban", "2", "--host-pin", created.hostPin]) == (0, "banned: 1 removed\n"))
        #expect(try cli(["unban", "--host-pin", created.hostPin]) == (0, "bans lifted\n"))
        #expect(try cli(["settings", "--history", "on", "--host-pin", created.hostPin]) == (0, "fairQueue: off  vetoShare: 0.4  history: on  approval: off  nicknames: off\n"))
        // R35: the host holds new guests' songs, lists them and decides them by number.
        #expect(try cli(["settings", "--approval", "new-guests", "--host-pin", created.hostPin]).1.hasSuffix("approval: new-guests  nicknames: off\n"))
        #expect(try cli(["settings", "--approval", "maybe", "--host-pin", created.hostPin]).0 == 1)
        #expect(try cli(["add", "Tanz auf dem Dach", "--pin", created.pin]) == (0, "Wartet auf Freigabe: Tanz auf dem Dach – Die Lichterketten\n"))
        #expect(try cli(["add", "Paper Planes", "--pin", created.pin]).1.hasPrefix("Wartet auf Freigabe: Paper Planes"))
        let listed = try cli(["pending", "--host-pin", created.hostPin])
        #expect(listed == (0, "1. Tanz auf dem Dach – Die Lichterketten\n2. Paper Planes at Noon – Mira Holm\n"), "\(listed)")
        #expect(try cli(["decline", "2", "--host-pin", created.hostPin]) == (0, "Abgelehnt: Paper Planes at Noon\n"))
        #expect(try cli(["approve", "1", "--host-pin", created.hostPin]) == (0, "Freigegeben: Tanz auf dem Dach\n"))
        let none = try cli(["pending", "--host-pin", created.hostPin])
        #expect(none == (0, "Gerade wartet kein Song auf Freigabe.\n"), "\(none)")
        #expect(try cli(["add", "Kaffee", "--pin", created.pin]).1.hasPrefix("Hinzugefügt! Kaffee"), "approved once, the guest adds at once")
        // R36: a guest names itself where the party shows nicknames; its songs carry the name.
        #expect(try cli(["nickname", "DJ", "Anna", "--pin", created.pin]) == (1, "musicvoting-cli: Spitznamen sind in dieser Party ausgeschaltet.\n"))
        #expect(try cli(["settings", "--nicknames", "on", "--host-pin", created.hostPin]).1.hasSuffix("nicknames: on\n"))
        #expect(try cli(["nickname", "DJ", "Anna", "--pin", created.pin]) == (0, "Dein Spitzname: DJ Anna\n"))
        let named = try cli(["queue", "--pin", created.pin]).1
        #expect(named.split(separator: "\n").contains { $0.hasPrefix("♥ 0  Kaffee um Mitternacht") && $0.hasSuffix("★  @DJ Anna") }, "\(named)")
        #expect(try cli(["nickname", "--pin", created.pin]) == (0, "Du bist wieder anonym.\n"))
        _ = try await server.client(hostPin: created.hostPin).registerMonitor(created.id, deviceId: "tv")
        #expect(try cli(["skip", "--host-pin", created.hostPin]).1 == "Läuft gerade: Neon Boulevard\n")
        #expect(try cli(["end", "--host-pin", created.hostPin]) == (0, "Die Party ist vorbei.\n"))
        #expect(try cli(["queue", "--pin", created.pin]).0 == 1)
    }
}
