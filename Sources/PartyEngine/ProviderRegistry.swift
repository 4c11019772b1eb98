import Providers

/// The providers this server offers, in the order the start page lists them.
public struct ProviderRegistry: Sendable {
    public let all: [any MusicProvider]

    public init(all: [any MusicProvider]) { self.all = all }

    public func provider(named name: String) -> (any MusicProvider)? { all.first { $0.name == name } }

    public var names: [String] { all.map(\.name) }
    public var configuredNames: [String] { all.filter(\.isConfigured).map(\.name) }
}
