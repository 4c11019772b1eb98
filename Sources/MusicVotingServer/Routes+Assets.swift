import Foundation
import HTTPServer
import Providers
import Rendering
import Synchronization

extension Routes {
    func addAssetRoutes(to router: inout Router) {
        let publicFiles = self.publicFiles
        router.add("GET", "/demo/audio/{file}", summary: "Demo song audio (WAV, byte ranges)") { request throws(HTTPError) in
            guard let number = Self.demoNumber(request.parameter("file"), suffix: ".wav"), let wav = DemoAudio.wav(number: number) else {
                throw .notFound
            }
            return StaticContent(bytes: wav, contentType: "audio/wav").response(to: request, cacheControl: "public, max-age=86400")
        }
        router.add("GET", "/demo/cover/{file}", summary: "Demo song cover (PNG; SVG too)") { request throws(HTTPError) in
            let file = request.parameter("file")
            if let number = Self.demoNumber(file, suffix: ".png"), let png = Self.demoCoverPNG(number: number) {
                return StaticContent(bytes: png, contentType: "image/png").response(to: request, cacheControl: "public, max-age=86400")
            }
            guard let number = Self.demoNumber(file, suffix: ".svg"), let svg = DemoCover.svg(number: number) else { throw .notFound }
            return StaticContent(bytes: Array(svg.utf8), contentType: "image/svg+xml")
                .response(to: request, cacheControl: "public, max-age=86400")
        }
        let library = self.library
        let service = self.service
        // Library files only for what a local party uses: audio of a queued song, covers while a local party runs.
        router.add("GET", "/local/audio/{id}", summary: "A queued local library file (byte ranges)") { request throws(HTTPError) in
            let id = request.parameter("id")
            guard service.localFileIsServed(trackId: id, audio: true), let item = library?.item(id: id),
                  let response = FileContent(path: item.path, contentType: StaticFiles.contentType(for: item.path), withoutLinks: true)
                    .response(to: request, cacheControl: "public, max-age=3600") else { throw .notFound }
            return response
        }
        router.add("GET", "/local/cover/{id}", summary: "The cover image beside a local file") { request throws(HTTPError) in
            let id = request.parameter("id")
            guard service.localFileIsServed(trackId: id, audio: false), let cover = library?.item(id: id)?.coverPath,
                  let response = FileContent(path: cover, contentType: StaticFiles.contentType(for: cover), withoutLinks: true)
                    .response(to: request, cacheControl: "public, max-age=3600") else { throw .notFound }
            return response
        }
        router.add("POST", "/api/party/{id}/library/rescan", summary: "Rescan the local music folder now (ours)", security: "hostOrCohost") { request throws(HTTPError) in
            try respond("rescan") {
                _ = try service.requireHostOrCohost(request, partyId: request.parameter("id"))
                guard let library else { throw ProviderError.notConfigured }
                library.rescan()
                return .json(["tracks": .integer(library.tracks.count)])
            }
        }
        // Pages link `/assets/v-<version>/…`: that URL changes with any file, so it is cached for a year without
        // revalidation; relative module imports stay under it. Other versions and bare paths revalidate.
        let current = "v-" + publicFiles.version + "/"
        router.add("GET", "/assets/{path*}", summary: "Static files from Public/ (gzip; versioned paths immutable)") { request throws(HTTPError) in
            var path = request.parameter("path")
            var cacheControl = "no-cache"
            if path.hasPrefix(current) {
                path.removeFirst(current.count)
                cacheControl = "public, max-age=31536000, immutable"
            } else if path.hasPrefix("v-"), let slash = path.firstIndex(of: "/") {
                path = String(path[path.index(after: slash)...])
            }
            guard let content = publicFiles.content(at: path) else { throw .notFound }
            return content.response(to: request, cacheControl: cacheControl)
        }
    }

    /// The 24 demo covers as PNG, rendered once each.
    private static let demoCovers = Mutex<[Int: [UInt8]]>([:])

    static func demoCoverPNG(number: Int) -> [UInt8]? {
        if let cached = demoCovers.withLock({ $0[number] }) { return cached }
        guard let (hue, initials) = DemoCover.design(number: number), let png = try? CoverArt.png(hue: hue, initials: initials) else {
            return nil
        }
        demoCovers.withLock { $0[number] = png }
        return png
    }

    static func demoNumber(_ file: String, suffix: String) -> Int? {
        guard file.hasSuffix(suffix) else { return nil }
        return DemoCatalog.validNumber(file.dropLast(suffix.count))
    }
}
