import Foundation

/// An executable of this package's build: beside the running test binary or in a folder above it (SwiftPM puts
/// products in the build folder, the test bundle's binary a level or more below it). Nil when there is none.
public func builtExecutable(_ name: String) -> String? {
    var folder = URL(fileURLWithPath: CommandLine.arguments[0]).resolvingSymlinksInPath().deletingLastPathComponent()
    while folder.path != "/" {
        let candidate = folder.appendingPathComponent(name).path
        if FileManager.default.isExecutableFile(atPath: candidate) { return candidate }
        folder = folder.deletingLastPathComponent()
    }
    return nil
}
