/// Serves fixed bytes with validators and byte ranges: `ETag`/`If-None-Match` → 304, `Range` → 206/416.
/// Text gets a gzip variant made once (`compressible`), sent to clients that accept it and ask for no range.
public struct StaticContent: Sendable {
    public let bytes: [UInt8]
    public let contentType: String
    public let etag: String
    /// The gzip variant, when it is worth having, and its own entity tag (a different representation).
    public let gzipped: [UInt8]?
    private let gzipEtag: String

    public init(bytes: [UInt8], contentType: String, compressible: Bool = false) {
        let tag = String(Self.fnv1a(bytes), radix: 16) + "-" + String(bytes.count, radix: 16)
        self.init(bytes: bytes, contentType: contentType, etag: "\"" + tag + "\"", gzipped: compressible ? GzipEncoder.smaller(bytes) : nil)
    }

    /// With the entity tag and gzip variant made beforehand (at build time for the files inside the binary) by
    /// the initializer above: the same values, so a copy of the binary and the checkout answer alike.
    public init(bytes: [UInt8], contentType: String, etag: String, gzipped: [UInt8]?) {
        self.bytes = bytes
        self.contentType = contentType
        self.etag = etag
        gzipEtag = String(etag.dropLast()) + "-gz\""
        self.gzipped = gzipped
    }

    public func response(to request: Request, cacheControl: String = "no-cache") -> Response {
        if let gzipped, request.header("range") == nil, Self.acceptsGzip(request.header("accept-encoding")) {
            return Representation.respond(to: request, etag: gzipEtag, length: gzipped.count, contentType: contentType,
                                          cacheControl: cacheControl, extraHeaders: [("Content-Encoding", "gzip"), ("Vary", "Accept-Encoding")]) { _ in
                .bytes(gzipped)
            }
        }
        return Representation.respond(to: request, etag: etag, length: bytes.count, contentType: contentType, cacheControl: cacheControl,
                                      extraHeaders: gzipped == nil ? [] : [("Vary", "Accept-Encoding")]) { range in
            .bytes(range.map { Array(bytes[$0]) } ?? bytes)
        }
    }

    /// FNV-1a: cheap, stable across restarts, changes when the bytes do (entity tags, the asset version).
    static func fnv1a<Bytes: Sequence<UInt8>>(_ bytes: Bytes, continuing hash: UInt64 = 0xcbf2_9ce4_8422_2325) -> UInt64 {
        bytes.reduce(hash) { ($0 ^ UInt64($1)) &* 0x100_0000_01b3 }
    }

    /// `Accept-Encoding` names gzip without `q=0` (RFC 9110 §12.5.3).
    static func acceptsGzip(_ header: String?) -> Bool {
        guard let header else { return false }
        return header.split(separator: ",").contains { item in
            let parts = item.split(separator: ";").map { $0.trimmingCharacters().lowercased() }
            guard let coding = parts.first, coding == "gzip" || coding == "x-gzip" else { return false }
            let weight = parts.dropFirst().first { $0.hasPrefix("q=") }.flatMap { Double($0.dropFirst(2)) } ?? 1
            return weight > 0
        }
    }
}
