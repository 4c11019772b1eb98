import Foundation
import PartyCore
import Synchronization

/// What remote providers said about uris: tracks (from searches and look-ups) for 10 minutes, "no such track"
/// for one. An add of a uri a guest just saw in search results costs no upstream call, and an unknown uri sent
/// again and again is asked once a minute (4,912 upstream look-ups from one address in 60 s).
public final class TrackLookups: Sendable {
    public static let foundLifetime: TimeInterval = 600
    public static let missingLifetime: TimeInterval = 60
    public static let capacity = 20_000

    private struct Answer {
        let track: Track?
        let expiresAt: Date
    }

    private let answers = Mutex<[String: Answer]>([:])

    public init() {}

    /// `.some(nil)`: the provider said recently that no such track exists; nil: it must be asked.
    public func answer(provider: String, uri: String, at now: Date) -> Track?? {
        answers.withLock { answers in
            guard let answer = answers[provider + "|" + uri], answer.expiresAt > now else { return nil }
            return .some(answer.track)
        }
    }

    public func remember(_ track: Track?, provider: String, uri: String, at now: Date) {
        remember([(uri, track)], provider: provider, at: now)
    }

    public func remember(found tracks: [Track], provider: String, at now: Date) {
        remember(tracks.map { ($0.uri, $0) }, provider: provider, at: now)
    }

    private func remember(_ items: [(uri: String, track: Track?)], provider: String, at now: Date) {
        answers.withLock { answers in
            if answers.count + items.count > Self.capacity {
                answers = answers.filter { $0.value.expiresAt > now }
                if answers.count + items.count > Self.capacity { answers.removeAll(keepingCapacity: true) }
            }
            for item in items {
                let lifetime = item.track == nil ? Self.missingLifetime : Self.foundLifetime
                answers[provider + "|" + item.uri] = Answer(track: item.track, expiresAt: now.addingTimeInterval(lifetime))
            }
        }
    }
}
