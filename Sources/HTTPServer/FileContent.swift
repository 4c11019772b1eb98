import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file on disk served without reading it into memory: validators from size and mtime, byte ranges.
public struct FileContent: Sendable {
    public let path: String
    public let contentType: String
    /// Refuse the file when any part of `path` is a symbolic link when it is opened: `path` was checked once (a
    /// music folder's scan), and a file or folder swapped for a link since must not lead out of it.
    public let withoutLinks: Bool

    public init(path: String, contentType: String, withoutLinks: Bool = false) {
        self.path = path
        self.contentType = contentType
        self.withoutLinks = withoutLinks
    }

    /// The file's answer, or nil when it cannot be opened.
    public func response(to request: Request, cacheControl: String = "no-cache") -> Response? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC | (withoutLinks ? O_NOFOLLOW : 0))
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG, !withoutLinks || Self.openedPath(descriptor) == path else {
            close(descriptor)
            return nil
        }
        let size = Int(info.st_size)
        let etag = "\"\(String(info.st_mtim.tv_sec, radix: 16))-\(String(size, radix: 16))\""
        let response = Representation.respond(to: request, etag: etag, length: size, contentType: contentType,
                                               cacheControl: cacheControl) { range in
            .file(descriptor: descriptor, offset: UInt64(range?.lowerBound ?? 0), length: UInt64(range?.count ?? size))
        }
        // libmicrohttpd owns the descriptor only when it is sent (304 and 416 send none).
        if case .file = response.body {} else { close(descriptor) }
        return response
    }

    /// The path the kernel resolved for an open descriptor: a folder on the way that became a link shows here.
    private static func openedPath(_ descriptor: Int32) -> String? {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let length = readlink("/proc/self/fd/\(descriptor)", &buffer, buffer.count - 1)
        guard length > 0 else { return nil }
        return String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
