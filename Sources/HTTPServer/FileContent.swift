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
        let common = [("ETag", etag), ("Cache-Control", cacheControl), ("Accept-Ranges", "bytes")]
        if let match = request.header("if-none-match"), match == etag {
            close(descriptor)
            return Response(status: 304, headers: common)
        }
        guard let rangeHeader = request.header("range") else {
            return Response(status: 200, headers: [("Content-Type", contentType)] + common,
                            body: .file(descriptor: descriptor, offset: 0, length: UInt64(size)))
        }
        guard let range = StaticContent.parseRange(rangeHeader, length: size) else {
            close(descriptor)
            return Response(status: 416, headers: [("Content-Range", "bytes */\(size)")] + common)
        }
        return Response(
            status: 206,
            headers: [("Content-Type", contentType), ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(size)")] + common,
            body: .file(descriptor: descriptor, offset: UInt64(range.lowerBound), length: UInt64(range.count)))
    }
}
