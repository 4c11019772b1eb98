import PartyCore

/// A provider whose credentials are missing: parties can be created, every lookup answers `.notConfigured`.
public struct UnconfiguredProvider: MusicProvider {
    public let name: String
    public var isConfigured: Bool { false }

    public init(name: String) {
        self.name = name
    }

    public func search(_ query: String) throws(ProviderError) -> [Track] { throw .notConfigured }
    public func track(uri: String) throws(ProviderError) -> Track? { throw .notConfigured }
    public func uri(forTrackId id: String) -> String { "\(name):track:\(id)" }
    public func charts() throws(ProviderError) -> [Track] { throw .notConfigured }
    public func playlists() throws(ProviderError) -> [Playlist] { throw .notConfigured }
    public func playlistTracks(id: String) throws(ProviderError) -> [Track] { throw .notConfigured }
}
