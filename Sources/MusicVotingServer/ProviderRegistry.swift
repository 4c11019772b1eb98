import Providers

/// The providers this server offers, in the order the start page lists them.
struct ProviderRegistry: Sendable {
    let all: [any MusicProvider]

    func provider(named name: String) -> (any MusicProvider)? { all.first { $0.name == name } }

    var names: [String] { all.map(\.name) }
    var configuredNames: [String] { all.filter(\.isConfigured).map(\.name) }
}
