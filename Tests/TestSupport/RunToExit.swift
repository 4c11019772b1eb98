import Foundation

/// Runs `executable` until it exits: its exit code and what it wrote to standard output and error together. The
/// output goes to a file, not a pipe, and the exit is waited for with waitpid: a pipe's end never came while another
/// process (a server a test started meanwhile) held its write side, and Foundation's `Process` once never reported a
/// child's exit; either hung the whole test run. With a `timeout`, a process still running when it has passed is
/// killed and `StillRunning` thrown.
public func runToExit(_ executable: String, _ arguments: [String], environment: [String: String]? = nil,
                      timeout: TimeInterval? = nil) throws -> (status: Int32, output: String) {
    let output = FileManager.default.temporaryDirectory.appendingPathComponent("mv-run-\(UUID().uuidString).log").path
    defer { try? FileManager.default.removeItem(atPath: output) }
    let status: Int32
    if let timeout {
        let child = try spawnProcess([executable] + arguments, output: output, environment: environment, wait: false)
        status = try reap(child, within: timeout)
    } else {
        status = try spawnProcess([executable] + arguments, output: output, environment: environment, wait: true)
    }
    let text = (try? String(contentsOfFile: output, encoding: .utf8)) ?? ""
    return (status, text)
}

public struct SpawnError: Error, CustomStringConvertible {
    public let description: String
}

/// A process `runToExit` ended because it outlived its timeout.
public struct StillRunning: Error {}

/// Polls waitpid for `child` until `timeout`; past it, SIGKILL, reaped, and `StillRunning` thrown.
private func reap(_ child: pid_t, within timeout: TimeInterval) throws -> Int32 {
    let deadline = Date().addingTimeInterval(timeout)
    var status: Int32 = 0
    while true {
        let reaped = waitpid(child, &status, WNOHANG)
        if reaped == child { return exitStatus(status) }
        if reaped < 0 && errno != EINTR { throw SpawnError(description: "waitpid: \(String(cString: strerror(errno)))") }
        if Date() >= deadline {
            kill(child, SIGKILL)
            while waitpid(child, &status, 0) < 0 && errno == EINTR {}
            throw StillRunning()
        }
        Thread.sleep(forTimeInterval: 0.02)
    }
}

/// waitpid's status as a shell shows it: the exit code, or 128 + the signal that ended the process.
private func exitStatus(_ status: Int32) -> Int32 {
    status & 0x7f == 0 ? (status >> 8) & 0xff : 128 + (status & 0x7f)
}

/// posix_spawn of `command` with standard input from /dev/null and standard output and error appended to `output`,
/// and no other descriptor of the test process; then, when `wait`, waitpid: the exit status (128 + the signal when a
/// signal ended it). Without `wait`, the child's process id once it started (the caller reaps it).
public func spawnProcess(_ command: [String], output: String, environment: [String: String]? = nil, wait: Bool) throws -> Int32 {
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
    posix_spawn_file_actions_adddup2(&actions, 1, 2)
    // Nothing else of the test process: a pipe another test reads to its end (QRCodeTests' zbarimg) would stay
    // open in a long-lived child, and that read would never end. (glibc ignores a close of a descriptor closed meanwhile.)
    let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
    for descriptor in open.compactMap(Int32.init) where descriptor > 2 {
        posix_spawn_file_actions_addclose(&actions, descriptor)
    }
    let arguments = command.map { strdup($0) } + [nil]
    defer { arguments.forEach { free($0) } }
    let variables = environment.map { $0.map { strdup("\($0.key)=\($0.value)") } + [nil] }
    defer { variables?.forEach { free($0) } }
    var child: pid_t = 0
    let spawned = variables.map { posix_spawn(&child, command[0], &actions, nil, arguments, $0) }
        ?? posix_spawn(&child, command[0], &actions, nil, arguments, environ)
    guard spawned == 0 else { throw SpawnError(description: "\(command[0]): \(String(cString: strerror(spawned)))") }
    guard wait else { return child }
    var status: Int32 = 0
    while waitpid(child, &status, 0) < 0 && errno == EINTR {}
    return exitStatus(status)
}
