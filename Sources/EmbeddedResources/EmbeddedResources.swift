import Foundation
import HTTPServer

/// `Public/` and `Templates/` compiled into the binary by the EmbedResources build plugin, so the one
/// file `musicvoting` serves every page and asset with no checkout beside it. Entity tags and gzip variants were
/// made at build time; decoding the base64 at start takes about a millisecond.
public enum EmbeddedResources {
    struct PublicEntry {
        let path: String
        let contentType: String
        let etag: String
        let bytes: String
        let gzipped: String?
    }

    /// Public/ as served, by path below it ("css/app.css").
    public static func publicFiles() -> StaticFiles {
        StaticFiles(files: Dictionary(uniqueKeysWithValues: publicEntries.map { entry in
            (entry.path, StaticContent(bytes: decode(entry.bytes), contentType: entry.contentType, etag: entry.etag,
                                       gzipped: entry.gzipped.map(decode)))
        }))
    }

    /// Templates/ by path below it ("guest.html", "locales/de.json").
    public static func templates() -> [String: [UInt8]] {
        Dictionary(uniqueKeysWithValues: templateEntries.map { ($0.path, decode($0.bytes)) })
    }

    /// The generator wrote valid base64; an empty file would show as a missing template at start.
    private static func decode(_ base64: String) -> [UInt8] { Data(base64Encoded: base64).map { [UInt8]($0) } ?? [] }
}
