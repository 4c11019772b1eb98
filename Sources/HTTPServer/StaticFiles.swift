import Foundation

/// The files of one folder (e.g. `Public/`), read once at start, served with `StaticContent` (text gzipped once).
public struct StaticFiles: Sendable {
    private let files: [String: StaticContent]
    /// Changes whenever any file does: pages link assets under `/assets/v-<version>/…`, cached as immutable.
    public let version: String

    /// The folder's files as they are now (`--resources`, a development override: edit, restart, no rebuild).
    public init(directory: URL) {
        self.init(files: FolderFiles.read(directory).reduce(into: [:]) { files, file in
            files[file.key] = Self.content(path: file.key, bytes: file.value)
        })
    }

    /// Files by path below the folder (those compiled into the binary come with tags and gzip made at build time).
    public init(files: [String: StaticContent]) {
        self.files = files
        version = String(files.sorted { $0.key < $1.key }.reduce(StaticContent.fnv1a([])) { hash, file in
            StaticContent.fnv1a(file.value.etag.utf8, continuing: StaticContent.fnv1a(file.key.utf8, continuing: hash))
        }, radix: 36)
    }

    /// A file as served: its content type by extension, text with a gzip variant.
    public static func content(path: String, bytes: [UInt8]) -> StaticContent {
        let type = contentType(for: path)
        return StaticContent(bytes: bytes, contentType: type, compressible: isText(type))
    }

    static func isText(_ contentType: String) -> Bool {
        contentType.hasPrefix("text/") || contentType.hasPrefix("application/json") || contentType.hasPrefix("image/svg")
            || contentType.hasPrefix("application/manifest")
    }

    /// The file at `relativePath`; only names read at start can match, so `..` cannot escape the folder.
    public func content(at relativePath: String) -> StaticContent? { files[relativePath] }

    public var paths: [String] { files.keys.sorted() }

    public static func contentType(for path: String) -> String {
        switch path.split(separator: ".").last.map({ $0.lowercased() }) ?? "" {
        case "html": return "text/html; charset=utf-8"
        case "css": return "text/css; charset=utf-8"
        case "js", "mjs": return "text/javascript; charset=utf-8"
        case "json": return "application/json; charset=utf-8"
        case "svg": return "image/svg+xml"
        case "png": return "image/png"
        case "jpg", "jpeg": return "image/jpeg"
        case "ico": return "image/x-icon"
        case "webmanifest": return "application/manifest+json"
        case "wav": return "audio/wav"
        case "mp3": return "audio/mpeg"
        case "ogg", "oga", "opus": return "audio/ogg"
        case "flac": return "audio/flac"
        case "m4a", "aac": return "audio/mp4"
        case "webm": return "audio/webm"
        case "woff2": return "font/woff2"
        case "txt": return "text/plain; charset=utf-8"
        default: return "application/octet-stream"
        }
    }
}
