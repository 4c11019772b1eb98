import Foundation
import PackagePlugin

/// Generates PartyCore's blacklist fold table from the build machine's ICU: case folding and the
/// TR39 confusable skeleton of every code point, so the table follows Debian's ICU data instead of a hand-typed
/// copy. The generator is the only input (ICU's data is no file SwiftPM watches: after an ICU upgrade, build clean);
/// the shipped binary carries the table, not libicu.
@main
struct FoldTable: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("FoldTable+Generated.swift")
        return [.buildCommand(displayName: "Generating the blacklist fold table from ICU",
                              executable: try context.tool(named: "FoldTableGenerator").url,
                              arguments: [output.path], inputFiles: [], outputFiles: [output])]
    }
}
