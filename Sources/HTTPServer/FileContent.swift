import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A file on disk served without reading it into memory: validators from size and mtime, byte ranges.
public struct FileContent: Sendable {
    public let path: String
    public let contentType: String

    public init(path: String, contentType: String) {
        self.path = path
        self.contentType = contentType
    }

    /// The file's answer, or nil when it cannot be opened.
    public func response(to request: Request, cacheControl: String = "no-cache") -> Response? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        var info = stat()
        guard fstat(descriptor, &info) == 0, (info.st_mode & S_IFMT) == S_IFREG else {
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
}
