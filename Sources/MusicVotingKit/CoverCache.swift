import Foundation
#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

/// Cover images, shared by every view and thread: each URL is fetched once (concurrent requests wait for the
/// same download); nil means "show the placeholder" (no URL, or the download failed).
public actor CoverCache {
    public static let shared = CoverCache()
    private var loads: [URL: Task<Data?, Never>] = [:]
    private let loader: BoundedLoader
    /// Downloads started (tests check that two requests for one URL cost one).
    public private(set) var downloads = 0

    public init(loader: BoundedLoader = .shared) { self.loader = loader }

    public func image(for url: URL?) async -> Data? {
        guard let url else { return nil }
        if let load = loads[url] { return await load.value }
        downloads += 1
        let loader = self.loader
        let load = Task<Data?, Never> {
            guard let (data, response) = try? await loader.load(URLRequest(url: url), limits: .covers),
                  (200..<300).contains(response.statusCode), !data.isEmpty else { return nil }
            return data
        }
        loads[url] = load
        let data = await load.value
        // A failed download is not cached: the next request tries again.
        if data == nil { loads[url] = nil }
        return data
    }

    /// After a queue load: fetch the covers before the rows scroll into view.
    public func prefetch(_ entries: [QueueEntry]) {
        for url in entries.compactMap(\.track.coverURL) where loads[url] == nil {
            Task { _ = await self.image(for: url) }
        }
    }
}
