import Foundation
import PartyCore

/// The embedded `demo` provider: no account, built-in catalog, audio served by the binary.
public struct DemoProvider: MusicProvider {
    public init() {}

    public var name: String { "demo" }
    public var isConfigured: Bool { true }

    public func search(_ query: String) throws(ProviderError) -> [Track] {
        guard !SearchText.folded(query).isEmpty else { return Array(DemoCatalog.tracks.prefix(10)) }
        return DemoCatalog.tracks.filter { SearchText.matches(query, [$0.name, $0.album] + $0.artists) }
    }

    public func track(uri: String) throws(ProviderError) -> Track? {
        DemoCatalog.number(of: uri).map { DemoCatalog.tracks[$0 - 1] }
    }

    public func uri(forTrackId id: String) -> String { DemoCatalog.uriPrefix + id }

    /// The whole catalog, so the refill can rotate through songs the party has not heard yet.
    public func charts() throws(ProviderError) -> [Track] { DemoCatalog.tracks }

    public func playlists() throws(ProviderError) -> [Playlist] {
        albums.map { Playlist(id: $0.id, name: $0.name, trackCount: $0.tracks.count, imageURL: $0.tracks.first?.imageURL) }
    }

    public func playlistTracks(id: String) throws(ProviderError) -> [Track] {
        albums.first { $0.id == id }?.tracks ?? []
    }

    /// Each demo album doubles as a playlist.
    private var albums: [(id: String, name: String, tracks: [Track])] {
        var order: [String] = []
        var byAlbum: [String: [Track]] = [:]
        for track in DemoCatalog.tracks {
            if byAlbum[track.album] == nil { order.append(track.album) }
            byAlbum[track.album, default: []].append(track)
        }
        return order.enumerated().map { index, album in ("album\(index + 1)", album, byAlbum[album] ?? []) }
    }
}
