import Foundation
import MusicVotingServer

// Callbacks for C live in the library: closures here would be main-actor isolated (NOTES-libmicrohttpd).
if let command = CommandLine.arguments.dropFirst().first, command == "install" || command == "uninstall" {
    do {
        let installer = try Installer(arguments: Array(CommandLine.arguments.dropFirst(2)))
        if command == "install" { try installer.install() } else { try installer.uninstall() }
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("musicvoting: \(error)\n".utf8))
        exit(1)
    }
}

if CommandLine.arguments.dropFirst().first == "nginx-config" {
    do {
        print(try NginxConfiguration(arguments: Array(CommandLine.arguments.dropFirst(2))).text, terminator: "")
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("musicvoting: \(error)\n".utf8))
        exit(2)
    }
}

if let command = CommandLine.arguments.dropFirst().first, let action = BackupCommand.Action(rawValue: command) {
    do {
        let backup = try BackupCommand(action: action, arguments: Array(CommandLine.arguments.dropFirst(2)),
                                       environment: ProcessInfo.processInfo.environment)
        print(try backup.run())
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("musicvoting: \(error.description)\n".utf8))
        exit(error.status)
    }
}

if CommandLine.arguments.dropFirst().first == "host-link" {
    do {
        let link = try HostRecoveryLink.make(arguments: Array(CommandLine.arguments.dropFirst(2)), environment: ProcessInfo.processInfo.environment)
        print("Open this link on the phone you want to control the party with (once, within \(Int(HostRecoveryLink.lifetime / 60)) minutes). It gives you a new host PIN; the TV stays connected:")
        print(link)
        exit(0)
    } catch {
        FileHandle.standardError.write(Data("musicvoting: \(error)\n".utf8))
        exit(2)
    }
}

let configuration: Configuration
do {
    configuration = try Configuration.parse(arguments: Array(CommandLine.arguments.dropFirst()),
                                            environment: ProcessInfo.processInfo.environment)
} catch .help {
    print(Configuration.usage)
    exit(0)
} catch .helpMarkdown {
    print(Configuration.markdownTable + "\n\n" + Configuration.operationsMarkdownTable)
    exit(0)
} catch {
    FileHandle.standardError.write(Data("\(error)\n".utf8))
    exit(2)
}

configuration.useLogFormat()
let signals = ShutdownSignals()
let application: Application
do {
    application = try Application(configuration: configuration)
    try application.start()
} catch {
    // One sentence that names the path or port and what to do (StartupError), not a Foundation dump.
    FileHandle.standardError.write(Data("musicvoting: \(error)\n".utf8))
    exit(1)
}
let shownHost = configuration.host.contains(":") ? "[\(configuration.host)]" : configuration.host
FileHandle.standardOutput.write(Data("MusicVoting listening on \(application.scheme)://\(shownHost):\(application.port)\n".utf8))
if let listener = configuration.metricsListener, let port = application.metricsPort {
    let host = listener.host.contains(":") ? "[\(listener.host)]" : listener.host
    FileHandle.standardOutput.write(Data("MusicVoting metrics on http://\(host):\(port)/metrics\n".utf8))
}
signals.wait()
signals.endProcess(after: configuration.drainSeconds)
application.drain(within: TimeInterval(configuration.drainSeconds))
print("MusicVoting stopped")
