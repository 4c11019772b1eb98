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
        let common = [("ETag", etag), ("Cache-Control", cacheControl), ("Accept-Ranges", "bytes")]
        if let match = request.header("if-none-match"), match.split(separator: ",").contains(where: { $0.trimmingCharacters() == etag || $0.trimmingCharacters() == "*" }) {
            return Response(status: 304, headers: common)
        }
        guard let rangeHeader = request.header("range") else {
            return Response(status: 200, headers: [("Content-Type", contentType)] + common, body: .bytes(bytes))
        }
        guard let range = Self.parseRange(rangeHeader, length: bytes.count) else {
            return Response(status: 416, headers: [("Content-Range", "bytes */\(bytes.count)")] + common)
        }
        return Response(
            status: 206,
            headers: [("Content-Type", contentType), ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(bytes.count)")] + common,
            body: .bytes(Array(bytes[range])))
    }

    /// One `bytes=a-b`, `bytes=a-` or `bytes=-n` range, clamped to the content; nil when unsatisfiable.
    static func parseRange(_ header: String, length: Int) -> ClosedRange<Int>? {
        guard header.hasPrefix("bytes="), length > 0 else { return nil }
        let spec = header.dropFirst(6).split(separator: ",").first.map { $0.trimmingCharacters() } ?? ""
        let parts = spec.split(separator: "-", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2 else { return nil }
        if parts[0].isEmpty {
            guard let suffix = Int(parts[1]), suffix > 0 else { return nil }
            return max(0, length - suffix)...(length - 1)
        }
        guard let start = Int(parts[0]), start >= 0, start < length else { return nil }
        if parts[1].isEmpty { return start...(length - 1) }
        guard let end = Int(parts[1]), end >= start else { return nil }
        return start...min(end, length - 1)
    }
}

extension Substring {
    func trimmingCharacters() -> String { String(self).trimmingSpaces }
}
