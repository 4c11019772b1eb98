/// Serves fixed bytes with validators and byte ranges: `ETag`/`If-None-Match` → 304, `Range` → 206/416.
public struct StaticContent: Sendable {
    public let bytes: [UInt8]
    public let contentType: String
    public let etag: String

    public init(bytes: [UInt8], contentType: String) {
        self.bytes = bytes
        self.contentType = contentType
        // FNV-1a over the content: cheap, stable across restarts, changes when the file does.
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in bytes { hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3 }
        etag = "\"" + String(hash, radix: 16) + "-" + String(bytes.count, radix: 16) + "\""
    }

    public func response(to request: Request, cacheControl: String = "no-cache") -> Response {
        Representation.respond(to: request, etag: etag, length: bytes.count, contentType: contentType, cacheControl: cacheControl) { range in
            .bytes(range.map { Array(bytes[$0]) } ?? bytes)
        }
    }
}
