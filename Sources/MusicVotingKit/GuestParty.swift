import Foundation
import Observation

/// A guest's view of the party: search (empty query → the top 10), the queue, adding and liking. Server refusals
/// (duplicate, rate limit, blacklist) are shown with the server's message.
@MainActor
@Observable
public final class GuestParty: AssignsChanges {
    public private(set) var results: [Track] = []
    public private(set) var queue: [QueueEntry] = []
    public private(set) var current: QueueEntry?
    /// R18b: what this guest may still add, as of the last queue read.
    public private(set) var budget: AddBudget?
    /// The last outcome to show: the search errors in the app's language, refusals in the server's words.
    public private(set) var message: String?
    public private(set) var ended = false

    @ObservationIgnored let client: MusicVotingClient
    @ObservationIgnored public let partyId: String
    @ObservationIgnored let sessions: Sessions
    @ObservationIgnored let strings: KitStrings
    @ObservationIgnored private var searchSequence = 0

    public init(client: MusicVotingClient, partyId: String, sessions: Sessions, strings: KitStrings = KitStrings()) {
        self.client = client
        self.partyId = partyId
        self.sessions = sessions
        self.strings = strings
    }

    public func search(_ query: String) async {
        searchSequence += 1
        let sequence = searchSequence
        do {
            let found = try await client.search(partyId, query: query.trimmingCharacters(in: .whitespaces))
            guard sequence == searchSequence else { return }
            set(\.results, found)
            set(\.message, nil)
        } catch {
            guard sequence == searchSequence else { return }
            set(\.results, [])
            // A refusal by the server and no server at all are different problems for the guest.
            set(\.message, error.status == nil ? strings[.backendUnreachable] : strings[.searchFailed])
        }
    }

    public func loadQueue() async {
        do {
            let answer = try await client.guestQueue(partyId, deviceId: sessions.deviceId)
            set(\.current, answer.entries.first { $0.isCurrentlyPlaying })
            set(\.queue, answer.entries.filter { !$0.isCurrentlyPlaying })
            set(\.budget, answer.budget)
            await CoverCache.shared.prefetch(answer.entries)
        } catch {
            if error.status == 404 { set(\.ended, true) }
        }
    }

    /// Adds a search result; true when the server took it.
    @discardableResult
    public func add(_ track: Track) async -> Bool {
        do {
            try await client.add(partyId, uri: track.uri, deviceId: sessions.deviceId)
            set(\.message, strings[.added])
            await loadQueue()
            return true
        } catch {
            set(\.message, error.serverMessage ?? strings[.backendUnreachable])
            return false
        }
    }

    /// R18b: takes back one of this guest's own waiting songs; true when the server removed it.
    @discardableResult
    public func removeOwn(_ entry: QueueEntry) async -> Bool {
        do {
            try await client.removeOwn(partyId, uri: entry.uri, deviceId: sessions.deviceId)
            await loadQueue()
            return true
        } catch {
            set(\.message, error.serverMessage ?? strings[.backendUnreachable])
            return false
        }
    }

    /// Toggles the like at once and rolls it back when the server refuses.
    public func like(_ entry: QueueEntry) async {
        guard let index = queue.firstIndex(where: { $0.id == entry.id }) else { return }
        let before = queue[index]
        var optimistic = before
        let liked = !(before.hasVoted ?? false)
        optimistic.hasVoted = liked
        optimistic.likeCount += liked ? 1 : -1
        queue[index] = optimistic
        do {
            let result = try await client.vote(partyId, uri: entry.uri, deviceId: sessions.deviceId)
            if let now = queue.firstIndex(where: { $0.id == entry.id }) {
                var confirmed = queue[now]
                confirmed.hasVoted = result.liked
                confirmed.likeCount = result.likeCount
                if queue[now] != confirmed { queue[now] = confirmed }
            }
            await loadQueue()
        } catch {
            if let now = queue.firstIndex(where: { $0.id == entry.id }) { queue[now] = before }
            set(\.message, error.serverMessage ?? strings[.backendUnreachable])
        }
    }

    public func handle(_ event: PartyEvent) async {
        switch event.type {
        case "party-ended":
            if event.partyId == partyId {
                sessions.leaveGuest()
                set(\.ended, true)
            }
        case "queue-updated", "vote-updated", "track-changed", "playback-changed", PartyEvent.connected, PartyEvent.resync:
            await loadQueue()
        default:
            break
        }
    }

}
