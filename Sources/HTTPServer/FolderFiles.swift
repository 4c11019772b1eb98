import Foundation

/// Every regular file below a folder, by its path relative to the folder ("css/app.css"), read at once.
public enum FolderFiles {
    public static func read(_ directory: URL) -> [String: [UInt8]] {
        var files: [String: [UInt8]] = [:]
        let root = directory.standardizedFileURL.path
        guard let walker = FileManager.default.enumerator(atPath: root) else { return files }
        for case let relative as String in walker {
            let path = root + "/" + relative
            var isDirectory: ObjCBool = false
            guard FileManager.default.fileExists(atPath: path, isDirectory: &isDirectory), !isDirectory.boolValue,
                  let data = FileManager.default.contents(atPath: path) else { continue }
            files[relative] = [UInt8](data)
        }
        return files
    }
}
