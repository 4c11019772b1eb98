import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The folders of the music library, walked without ever leaving it: every path is
/// resolved and accepted only inside the library's real root, so a `leak.mp3 → /etc/passwd` link is
/// skipped; each folder is entered once (loop links); dot-files, depth and counts are capped.
struct LibraryWalk {
    static let maxDepth = 16
    static let maxFolders = 5_000
    static let maxFiles = 50_000

    struct Folder: Equatable {
        /// The folder's real path and its path relative to the root ("" for the root).
        let path: String
        let relative: String
        let modified: Date?
        /// Visible regular files in the folder: name → real path inside the library.
        let files: [(name: String, realPath: String)]

        static func == (left: Folder, right: Folder) -> Bool {
            left.path == right.path && left.modified == right.modified
        }
    }

    let root: String
    private(set) var folders: [Folder] = []

    /// Walks `root` (resolved first); an unreadable root yields no folders.
    init(root: String) {
        self.root = Self.realPath(root) ?? root
        var visited = Set<String>()
        var fileCount = 0
        var pending: [(path: String, relative: String, depth: Int)] = [(self.root, "", 0)]
        while let (folder, relative, depth) = pending.popLast(), folders.count < Self.maxFolders {
            guard let identity = Self.identity(folder), visited.insert(identity).inserted else { continue }
            let names = ((try? FileManager.default.contentsOfDirectory(atPath: folder)) ?? []).filter { !$0.hasPrefix(".") }.sorted()
            var files: [(String, String)] = []
            for name in names {
                guard let real = Self.realPath(folder + "/" + name), isInside(real) else { continue }
                var info = stat()
                guard stat(real, &info) == 0 else { continue }
                if info.st_mode & S_IFMT == S_IFDIR {
                    if depth < Self.maxDepth { pending.append((real, relative.isEmpty ? name : relative + "/" + name, depth + 1)) }
                } else if info.st_mode & S_IFMT == S_IFREG, fileCount < Self.maxFiles {
                    files.append((name, real))
                    fileCount += 1
                }
            }
            let modified = (try? FileManager.default.attributesOfItem(atPath: folder)[.modificationDate]) as? Date
            folders.append(Folder(path: folder, relative: relative, modified: modified, files: files))
        }
        folders.sort { $0.relative < $1.relative }
    }

    /// Whether a resolved path lies in the library.
    func isInside(_ real: String) -> Bool {
        real == root || real.hasPrefix(root.hasSuffix("/") ? root : root + "/")
    }

    static func realPath(_ path: String) -> String? {
        guard let resolved = realpath(path, nil) else { return nil }
        defer { free(resolved) }
        return String(decoding: UnsafeRawBufferPointer(start: resolved, count: strlen(resolved)), as: UTF8.self)
    }

    /// Device and inode: the same folder reached by two paths is one folder.
    private static func identity(_ path: String) -> String? {
        var info = stat()
        guard stat(path, &info) == 0 else { return nil }
        return "\(info.st_dev):\(info.st_ino)"
    }
}
