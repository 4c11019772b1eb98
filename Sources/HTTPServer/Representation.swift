/// How one representation (fixed bytes or a file) answers a GET: `If-None-Match` → 304, `Range` → 206 or
/// 416, else 200. One implementation for both, so they cannot disagree on validators or ranges.
enum Representation {
    /// `body(nil)` is the whole content, `body(range)` one part of it; it is called only when a body is sent.
    static func respond(to request: Request, etag: String, length: Int, contentType: String, cacheControl: String,
                        extraHeaders: [(String, String)] = [], body: (ClosedRange<Int>?) -> Response.Body) -> Response {
        let common = [("ETag", etag), ("Cache-Control", cacheControl), ("Accept-Ranges", "bytes")] + extraHeaders
        if let match = request.header("if-none-match"), matches(match, etag: etag) {
            return Response(status: 304, headers: common)
        }
        guard let rangeHeader = request.header("range") else {
            return Response(status: 200, headers: [("Content-Type", contentType)] + common, body: body(nil))
        }
        guard let range = parseRange(rangeHeader, length: length) else {
            return Response(error: HTTPError(status: 416, message: "Bereich nicht verfügbar.", code: "range_not_satisfiable",
                                             headers: [("Content-Range", "bytes */\(length)")] + common))
        }
        return Response(
            status: 206,
            headers: [("Content-Type", contentType), ("Content-Range", "bytes \(range.lowerBound)-\(range.upperBound)/\(length)")] + common,
            body: body(range))
    }

    /// `If-None-Match`: a list of entity tags, or `*`.
    static func matches(_ header: String, etag: String) -> Bool {
        header.split(separator: ",").contains { $0.trimmingCharacters() == etag || $0.trimmingCharacters() == "*" }
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
