import Foundation
import Testing
@testable import MusicVotingKit

@Suite("Guest: search, add, like")
@MainActor
struct GuestPartyTests {
    /// A new demo party and a guest of it (German texts, its own sessions).
    static func guest(of server: KitServer) async throws -> (CreatedParty, GuestParty, Sessions) {
        let created = try await server.client().createParty(provider: "demo")
        let (sessions, _) = temporarySessions()
        return (created, GuestParty(client: server.client(), partyId: created.id, sessions: sessions, strings: german), sessions)
    }

    @Test func anEmptyQueryShowsTheTopTenAndBothSearchErrorsHaveTheirText() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, party, sessions) = try await Self.guest(of: server)
        await party.search("")
        #expect(party.results.count == 10 && party.message == nil)
        await party.search("Neon")
        #expect(party.results.map(\.name) == ["Neon Boulevard"])

        let gone = GuestParty(client: server.client(), partyId: "no-such-party", sessions: sessions, strings: german)
        await gone.search("x")
        #expect(gone.message == "Suche fehlgeschlagen. Bitte erneut versuchen." && gone.results.isEmpty)
        let unreachable = GuestParty(client: MusicVotingClient(baseURL: URL(string: "http://127.0.0.1:1")!), partyId: created.id,
                                     sessions: sessions, strings: german)
        await unreachable.search("x")
        #expect(unreachable.message == "Backend nicht erreichbar. Bitte Backend starten und erneut versuchen.")
    }

    @Test func addLikeAndTheServersRefusalsInItsOwnWords() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, party, _) = try await Self.guest(of: server)
        await party.search("")
        let first = party.results[0]
        #expect(await party.add(first) && party.message == "Hinzugefügt!" && party.queue.map(\.uri) == [first.uri])
        #expect(await party.add(first) == false && party.message == "Song ist schon in der Warteschlange.")
        _ = try await server.client(hostPin: created.hostPin).addBlacklistWord(created.id, word: party.results[1].name)
        #expect(await party.add(party.results[1]) == false && party.message == "Nicht erlaubt.")

        await party.like(party.queue[0])
        #expect(party.queue[0].hasVoted == true && party.queue[0].likeCount == 1)
        await party.like(party.queue[0])
        #expect(party.queue[0].hasVoted == false && party.queue[0].likeCount == 0)

        // A like the server refuses (the song left the queue meanwhile) is rolled back.
        let entry = party.queue[0]
        try await server.client(hostPin: created.hostPin).remove(created.id, uri: entry.uri)
        await party.like(entry)
        #expect(party.message == "Song nicht in der Warteschlange.")
        // Nothing reloads the queue here (no stream): the entry is still listed, with the like taken back.
        let rolledBack = try #require(party.queue.first { $0.id == entry.id }, "the refused entry stays as it was")
        #expect(rolledBack.likeCount == 0 && rolledBack.hasVoted == false, "the optimistic like is rolled back: \(rolledBack)")
    }

    @Test func aGuestSeesItsBudgetAndTakesBackOnlyItsOwnSong() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, party, _) = try await Self.guest(of: server)
        await party.loadQueue()
        #expect(party.budget == AddBudget(addsLeft: 10, nextAddInMs: 0))
        await party.search("")
        #expect(await party.add(party.results[0]))
        #expect(party.budget?.addsLeft == 9 && (party.budget?.nextAddInMs ?? 0) > 0, "\(String(describing: party.budget))")
        try await server.client().add(created.id, uri: party.results[1].uri, deviceId: "someone-else")
        await party.loadQueue()
        let others = try #require(party.queue.first { $0.mine != true })
        #expect(await party.removeOwn(others) == false && party.message == "Nicht erlaubt.")
        let own = try #require(party.queue.first { $0.mine == true })
        #expect(await party.removeOwn(own) && party.queue.map(\.uri) == [others.uri])
    }

    /// The server says `resync` when a stream's Last-Event-ID is older than the party's log keeps; the
    /// guest then reloads what it shows, as after any reconnect.
    @Test func aResyncFromTheServerReloadsTheQueue() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, party, _) = try await Self.guest(of: server)
        try await server.client().add(created.id, uri: "demo:track:3", deviceId: "someone-else")
        #expect(party.queue.isEmpty)
        await party.handle(PartyEvent(id: "42", type: PartyEvent.resync, payload: ["partyId": created.id, "reason": "expired"]))
        #expect(party.queue.map(\.uri) == ["demo:track:3"])
    }

    @Test func theAddLimitAnswersWithTheServersMessage() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let (created, party, sessions) = try await Self.guest(of: server)
        for number in 1...10 { try await server.client().add(created.id, uri: "demo:track:\(number)", deviceId: sessions.deviceId) }
        await party.search("Regen")
        #expect(await party.add(party.results[0]) == false && party.message == "Zu viele Anfragen — bitte kurz warten.")
    }
}
