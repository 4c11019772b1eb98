import Foundation
@testable import MusicVotingKit
import TestSupport

/// Our real `musicvoting` binary on 127.0.0.1 (port 0 unless given), with its own data folder.
final class KitServer {
    let process = Process()
    let data: String
    private(set) var port: UInt16 = 0

    static func built(_ name: String) -> String {
        var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
        while folder.path != "/" {
            let candidate = folder.appendingPathComponent(name).path
            if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
        return URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent(".build/debug/\(name)").path
    }

    /// The CLI against this server, with a home folder of its own (`home`) and German messages; its exit status and
    /// output.
    func cli(_ arguments: [String], home: String) throws -> (Int32, String) {
        try runToExit(Self.built("musicvoting-cli"), ["--server", base.absoluteString] + arguments,
                      environment: ["MUSICVOTING_CLI_HOME": home, "LANG": "de_DE.UTF-8"])
    }

    init(data: String? = nil, port: UInt16 = 0) throws {
        self.data = data ?? FileManager.default.temporaryDirectory.appendingPathComponent("mv-kit-\(UUID().uuidString)").path
        process.executableURL = URL(fileURLWithPath: Self.built("musicvoting"))
        process.arguments = ["--host", "127.0.0.1", "--port", String(port), "--data", self.data]
        let output = Pipe()
        process.standardOutput = output
        process.standardError = FileHandle.nullDevice
        try process.run()
        var text = ""
        let deadline = Date().addingTimeInterval(15)
        while Date() < deadline {
            let chunk = output.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            text += String(decoding: chunk, as: UTF8.self)
            if let line = text.split(separator: "\n").first(where: { $0.hasPrefix("MusicVoting listening on") }),
               let found = line.split(separator: ":").last.flatMap({ UInt16($0) }) {
                self.port = found
                return
            }
        }
        process.terminate()
        throw KitTestFailure("server did not start: \(text)")
    }

    var base: URL { URL(string: "http://127.0.0.1:\(port)")! }
    func client(hostPin: String? = nil) -> MusicVotingClient { MusicVotingClient(baseURL: base, hostPin: hostPin) }

    func stop() {
        guard process.isRunning else { return }
        process.terminate()
        process.waitUntilExit()
    }

    deinit { stop() }
}

struct KitTestFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Sessions in a fresh temporary folder.
func temporarySessions() -> (Sessions, URL) {
    let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-kit-sessions-\(UUID().uuidString)")
    return (Sessions(storage: FileSessionStorage(folder: folder)), folder)
}

let german = KitStrings(preferredLanguages: ["de-DE"])

/// Polls `condition` on the main actor until it holds (at most `seconds`: generous, as the whole suite shares two
/// cores; a condition that holds returns at once).
@MainActor
func eventually(_ seconds: Double = 15, _ condition: @MainActor () async -> Bool) async -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if await condition() { return true }
        try? await Task.sleep(nanoseconds: 50_000_000)
    }
    return await condition()
}
