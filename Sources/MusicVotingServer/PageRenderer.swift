import Foundation
import HTTPServer
import JSONKit
import Rendering

/// The HTML pages: templates from `Templates/` parsed once at start, rendered per request in the
/// visitor's language, with the security headers every page needs.
struct PageRenderer: Sendable {
    static let pages = ["start", "guest", "monitor", "host", "not-found", "unknown-host"]
    static let partialNames = ["head", "foot", "now-playing", "queue", "recap"]

    private let templates: [String: Template]
    private let partials: [String: Template]
    private let localization: Localization
    /// Where pages link their assets (`/assets/v-<version>`), filled into templates as `{{assets}}`.
    private let assetBase: String
    /// The public URL the API builds cover URLs on; pages load a cover of this server by its path.
    private let publicBase: @Sendable () -> String

    enum LoadError: Error, CustomStringConvertible {
        case missing(String)
        case invalid(String, Template.ParseError)
        var description: String {
            switch self {
            case .missing(let name): return "template \(name).html is missing"
            case let .invalid(name, error): return "template \(name).html: \(error)"
            }
        }
    }

    /// `files`: Templates/ by path below it ("guest.html", "locales/de.json"), from the binary or `--resources`.
    init(files: [String: [UInt8]], assetBase: String = "/assets", publicBase: @escaping @Sendable () -> String = { "" }) throws {
        self.assetBase = assetBase
        self.publicBase = publicBase
        func load(_ name: String) throws -> Template {
            guard let bytes = files["\(name).html"] else { throw LoadError.missing(name) }
            do { return try Template(String(decoding: bytes, as: UTF8.self)) } catch { throw LoadError.invalid(name, error) }
        }
        templates = try Dictionary(uniqueKeysWithValues: Self.pages.map { ($0, try load($0)) })
        partials = try Dictionary(uniqueKeysWithValues: Self.partialNames.map { ($0, try load($0)) })
        localization = try Localization(files: files)
    }

    /// `{"a.b": "x"}` as `{"a": {"b": "x"}}`, so templates say `{{t.a.b}}` (Mustache dotted names).
    static func nested(_ strings: [String: String]) -> MustacheValue {
        var root: [String: MustacheValue] = [:]
        func insert(_ path: ArraySlice<Substring>, _ value: String, into object: inout [String: MustacheValue]) {
            guard let head = path.first.map(String.init) else { return }
            if path.count == 1 { object[head] = .string(value); return }
            var child: [String: MustacheValue] = [:]
            if case .object(let existing)? = object[head] { child = existing }
            insert(path.dropFirst(), value, into: &child)
            object[head] = .object(child)
        }
        for (key, value) in strings { insert(key.split(separator: ".")[...], value, into: &root) }
        return .object(root)
    }

    /// Renders `page` for the request's language. `data` adds page fields to the common ones.
    func render(_ page: String, for request: Request, title: String, data: [String: MustacheValue] = [:],
                extraScriptSources: [String] = []) -> Response {
        let language = Localization.language(acceptLanguage: request.header("accept-language"))
        let strings = localization.strings(for: language)
        let stringsJSON = JSON.object(strings.sorted { $0.key < $1.key }.map { ($0.key, .string($0.value)) }).serialized
        var fields: [String: MustacheValue] = [
            "lang": .string(language), "page": .string(page), "title": .string(strings[title] ?? title),
            "t": Self.nested(strings), "stringsJSON": .string(stringsJSON), "assets": .string(assetBase),
            "script": .bool(page != "not-found" && page != "unknown-host"), "publicURL": .string(publicBase()),
        ]
        fields.merge(data) { _, new in new }
        let html = templates[page]?.render(.object(fields), partials: partials) ?? ""
        let scripts = (["'self'"] + extraScriptSources).joined(separator: " ")
        return Response(status: 200, headers: [
            ("Content-Type", "text/html; charset=utf-8"),
            ("Cache-Control", "no-store"),
            ("Content-Language", language),
            ("Content-Security-Policy", "default-src 'self'; script-src \(scripts); style-src 'self'; "
                + "img-src 'self' data: https:; media-src 'self' blob: https:; frame-src https://www.youtube.com https://sdk.scdn.co; "
                + "connect-src 'self' https:; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"),
            // Not no-referrer: YouTube's embedded player fails with error 153 without a Referer (SPEC).
            ("Referrer-Policy", "strict-origin-when-cross-origin"),
            ("X-Content-Type-Options", "nosniff"),
        ], body: .bytes(Array(html.utf8))).gzipped(for: request)
    }
}
