import Foundation
import PackagePlugin

/// Compiles the package's `Public/` and `Templates/` into the target it is applied to (one file to
/// copy). Every file is an input, so editing one rebuilds the generated source.
@main
struct EmbedResources: BuildToolPlugin {
    func createBuildCommands(context: PluginContext, target: Target) throws -> [Command] {
        let root = context.package.directoryURL
        let folders = ["Public", "Templates"].map { root.appendingPathComponent($0) }
        var inputs: [URL] = []
        for folder in folders {
            guard let walker = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: [.isRegularFileKey]) else { continue }
            for case let file as URL in walker where (try? file.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                inputs.append(file)
            }
        }
        let output = context.pluginWorkDirectoryURL.appendingPathComponent("EmbeddedResources+Files.swift")
        return [.buildCommand(displayName: "Embedding Public/ and Templates/",
                              executable: try context.tool(named: "ResourceEmbedder").url,
                              arguments: [output.path] + folders.map(\.path),
                              inputFiles: inputs, outputFiles: [output])]
    }
}
