import Foundation
import PartyCore

/// Provider `local`: the host's own files (`--library DIR`), played by the monitor's `<audio>` adapter.
public struct LocalProvider: MusicProvider {
    public static let uriPrefix = "local:track:"
    public let library: LocalLibrary

    public init(library: LocalLibrary) { self.library = library }

    public var name: String { "local" }
    public var isConfigured: Bool { true }

    public func search(_ query: String) throws(ProviderError) -> [Track] {
        let all = library.tracks
        guard !SearchText.folded(query).isEmpty else { return Array(all.prefix(10)) }
        return all.filter { SearchText.matches(query, [$0.name, $0.album] + $0.artists) }
    }

    public func track(uri: String) throws(ProviderError) -> Track? {
        guard uri.hasPrefix(Self.uriPrefix) else { return nil }
        return library.item(id: String(uri.dropFirst(Self.uriPrefix.count)))?.track
    }

    public func uri(forTrackId id: String) -> String { Self.uriPrefix + id }

    /// Ten random songs of the library: the refill of a party without a default folder.
    public func charts() throws(ProviderError) -> [Track] { Array(library.tracks.shuffled().prefix(10)) }

    public func playlists() throws(ProviderError) -> [Playlist] {
        library.folders.map { Playlist(id: "folder:" + $0.name, name: $0.name, trackCount: $0.tracks.count, imageURL: $0.tracks.first?.imageURL) }
    }

    public func playlistTracks(id: String) throws(ProviderError) -> [Track] {
        library.folders.first { "folder:" + $0.name == id }?.tracks ?? []
    }
}
