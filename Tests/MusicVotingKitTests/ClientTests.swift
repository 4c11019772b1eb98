import Foundation
import Testing
@testable import MusicVotingKit

@Suite("Client: every SPEC call, typed")
struct ClientTests {
    @Test func everyCallAnswersItsModelAgainstTheRealServer() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let guest = server.client()
        #expect(try await guest.health())
        let created = try await guest.createParty(provider: "demo")
        let host = server.client(hostPin: created.hostPin)
        #expect(try await guest.join(pin: created.pin).id == created.id)
        #expect(try await guest.hostJoin(hostPin: created.hostPin).id == created.id)
        #expect(try await guest.party(created.id).hostPin == nil, "R25: no host PIN for a guest")
        #expect(try await host.party(created.id).hostPin == created.hostPin)
        let top = try await guest.search(created.id, query: "")
        #expect(top.count == 10 && top.allSatisfy { $0.uri.hasPrefix("demo:track:") && $0.coverURL != nil })
        #expect(try await guest.track(created.id, trackId: top[0].id).uri == top[0].uri)
        try await guest.add(created.id, uri: top[0].uri, deviceId: "phone-a")
        try await guest.add(created.id, uri: top[1].uri, deviceId: "phone-a")
        let vote = try await guest.vote(created.id, uri: top[1].uri, deviceId: "phone-b")
        #expect(vote == VoteResult(liked: true, likeCount: 1))
        let mine = try await guest.queue(created.id, deviceId: "phone-b")
        #expect(mine.map(\.uri) == [top[1].uri, top[0].uri] && mine.map(\.hasVoted) == [true, false])
        let registration = try await host.registerMonitor(created.id, deviceId: "tv")
        #expect(registration.deviceActive && !registration.monitorToken.isEmpty)
        #expect(try await host.start(created.id).track?.uri == top[1].uri)
        #expect(try await host.pause(created.id).isPlaying == false)
        #expect(try await host.resume(created.id).isPlaying == true)
        try await guest.reportProgress(created.id, token: registration.monitorToken, positionMs: 1200, durationMs: 32000, paused: false)
        try await host.play(created.id, uri: top[0].uri)
        #expect(try await guest.current(created.id).track?.uri == top[0].uri)
        #expect(try await host.next(created.id).status == "playing")
        #expect(try await host.addBlacklistWord(created.id, word: "Zucker") == ["Zucker"])
        #expect(try await host.blacklist(created.id) == ["Zucker"])
        #expect(try await host.removeBlacklistWord(created.id, word: "Zucker") == [])
        let queued = try await guest.queue(created.id).filter { !$0.isCurrentlyPlaying }
        if let first = queued.first { try await host.remove(created.id, uri: first.uri) }
        try await host.prepareNext(created.id)
        try await host.setDefaultPlaylist(created.id, playlistId: "")
        #expect(try await guest.qrCode(created.id).starts(with: [0x89, 0x50, 0x4E, 0x47]))
        try await host.endParty(created.id)
        await #expect(throws: APIError.self) { try await guest.join(pin: created.pin) }
    }

    @Test func hostCallsSendTheBearerPinAndNoHeaderWithoutOne() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        // No stored PIN: no Authorization header at all, so R24's 401 (not the 403 of a wrong PIN).
        await #expect(throws: APIError.server(status: 401, message: "Host-PIN fehlt.", code: "unauthorized", retryAfter: nil)) {
            try await server.client().blacklist(created.id)
        }
        let request = try server.client().request("GET", "/api/party/x/blacklist", host: true)
        #expect(request.value(forHTTPHeaderField: "Authorization") == nil)
        #expect(try server.client(hostPin: "12345").request("GET", "/x", host: true).value(forHTTPHeaderField: "Authorization") == "Bearer 12345")
        #expect(try await server.client(hostPin: created.hostPin).blacklist(created.id) == [])
    }

    @Test func settingsVetoBanAndStartTimesAgainstTheRealServer() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let guest = server.client()
        let plain = try await guest.createParty(provider: "demo")
        #expect(try await guest.settings(plain.id) == PartySettings(), "the API defaults")
        try await guest.add(plain.id, uri: "demo:track:1", deviceId: "a")
        let old = try await guest.queue(plain.id, deviceId: "a")
        #expect(old.first?.vetoCount == nil && old.first?.vetoNeeded == nil, "the veto off: the shape older clients know")
        #expect(old.first?.mine == true && old.first?.startsInMs == 0, "R18a")

        let created = try await guest.createParty(provider: "demo", settings: PartySettings(fairQueue: true, vetoShare: 0.4))
        let host = server.client(hostPin: created.hostPin)
        #expect(try await guest.settings(created.id) == PartySettings(fairQueue: true, vetoShare: 0.4))
        #expect(try await host.updateSettings(created.id, PartySettings(fairQueue: false, vetoShare: 0.5)) == PartySettings(fairQueue: false, vetoShare: 0.5))
        try await guest.add(created.id, uri: "demo:track:1", deviceId: "a")
        try await guest.add(created.id, uri: "demo:track:2", deviceId: "troll")
        // Three guests (a, troll, b): a's song has two who could veto it, max(2, ⌈0.5 × 2⌉) = 2 (R17a).
        #expect(try await guest.veto(created.id, uri: "demo:track:1", deviceId: "b") == VetoResult(vetoed: true, vetoCount: 1, vetoNeeded: 2))
        let queue = try await guest.queue(created.id, deviceId: "b")
        #expect(queue.first?.vetoCount == 1 && queue.first?.vetoNeeded == 2 && queue.first?.hasVetoed == true)
        #expect(queue.last?.startsInMs == 32_000 && queue.last?.mine == nil, "the second song starts after the first; not b's")
        let trollsEntry = try #require(queue.first { $0.uri == "demo:track:2" })
        #expect(try await host.ban(created.id, entryId: trollsEntry.id) == BanResult(removed: 1))
        do {
            try await guest.add(created.id, uri: "demo:track:3", deviceId: "troll")
            Issue.record("a banned guest added a song")
        } catch {
            #expect(error == .server(status: 403, message: "Nicht erlaubt.", code: "banned", retryAfter: nil))
        }
        try await host.liftBans(created.id)
        try await guest.add(created.id, uri: "demo:track:3", deviceId: "troll")
    }

    @Test func playlistsAreSavedWhereTheProviderHasThemAndExportedEverywhere() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let host = server.client(hostPin: created.hostPin)
        try await server.client().add(created.id, uri: "demo:track:2", deviceId: "a")
        await #expect(throws: APIError.self) { try await host.saveToPlaylist(created.id, uris: ["demo:track:2"]) }
        let m3u8 = String(decoding: try await host.exportPlaylist(created.id, format: .m3u8), as: UTF8.self)
        #expect(m3u8.hasPrefix("#EXTM3U") && m3u8.contains("/demo/audio/2.wav"), "\(m3u8)")
        let jspf = try JSONSerialization.jsonObject(with: try await host.exportPlaylist(created.id, format: .jspf)) as? [String: Any]
        #expect(jspf?["playlist"] != nil)
    }

    @Test func theHistoryAndTheRecapAreReadWhereThePartyKeepsThem() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo", settings: PartySettings(history: true))
        let host = server.client(hostPin: created.hostPin)
        #expect(try await host.settings(created.id).history)
        _ = try await host.registerMonitor(created.id, deviceId: "tv")
        try await server.client().add(created.id, uri: "demo:track:1", deviceId: "a")
        try await server.client().add(created.id, uri: "demo:track:2", deviceId: "a")
        _ = try await host.next(created.id)
        let history = try await host.history(created.id)
        #expect(history.map(\.track.uri) == ["demo:track:1"] && history.first?.ended == "skipped")
        await #expect(throws: APIError.self) { try await server.client().recap(created.id) }
        try await host.endParty(created.id)
        let recap = try await server.client().recap(created.id)
        #expect(recap.songs.map(\.track.uri) == ["demo:track:1", "demo:track:2"] && recap.guests == 1)
        let plain = try await server.client().createParty(provider: "demo")
        #expect(try await server.client().settings(plain.id).history == false)
        await #expect(throws: APIError.self) { try await server.client(hostPin: plain.hostPin).history(plain.id) }
    }

    @Test func songsWaitingForApprovalAreListedApprovedAndDeclined() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo", settings: PartySettings(approval: "all"))
        let host = server.client(hostPin: created.hostPin)
        #expect(try await host.settings(created.id).approval == "all")
        let guest = server.client()
        let first = try await guest.addReportingApproval(created.id, uri: "demo:track:1", deviceId: "a")
        #expect(first.isPending && first.pendingIds?.count == 1)
        _ = try await guest.addReportingApproval(created.id, uri: "demo:track:2", deviceId: "a")
        #expect(try await guest.guestQueue(created.id, deviceId: "a").pending.map(\.track.uri) == ["demo:track:1", "demo:track:2"])
        #expect(try await guest.guestQueue(created.id, deviceId: "b").pending.isEmpty)
        let waiting = try await host.pendingSongs(created.id)
        #expect(waiting.map(\.track.uri) == ["demo:track:1", "demo:track:2"] && waiting.first?.id == first.pendingIds?.first)
        try await host.approve(created.id, pendingId: waiting[0].id)
        try await host.decline(created.id, pendingId: waiting[1].id)
        #expect(try await host.pendingSongs(created.id).isEmpty)
        #expect(try await guest.queue(created.id).map(\.uri) == ["demo:track:1"])
        await #expect(throws: APIError.self) { try await host.approve(created.id, pendingId: waiting[1].id) }
        var settings = try await host.settings(created.id)
        settings.approval = "off"
        #expect(try await host.updateSettings(created.id, settings).approval == "off")
        #expect(try await guest.addReportingApproval(created.id, uri: "demo:track:3", deviceId: "a").isPending == false)
    }

    @Test func aGuestNamesItselfAndItsEntriesCarryTheName() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo", settings: PartySettings(nicknames: true))
        let host = server.client(hostPin: created.hostPin)
        #expect(try await host.settings(created.id).nicknames)
        let guest = server.client()
        #expect(try await guest.setNickname(created.id, deviceId: "a", nickname: " Mila ") == "Mila")
        try await guest.add(created.id, uri: "demo:track:1", deviceId: "a")
        #expect(try await guest.queue(created.id).first?.addedBy == "Mila")
        #expect(try await guest.guestQueue(created.id, deviceId: "a").nickname == "Mila")
        await #expect(throws: APIError.self) { try await guest.setNickname(created.id, deviceId: "b", nickname: "mila") }
        #expect(try await guest.setNickname(created.id, deviceId: "a", nickname: nil) == nil)
        #expect(try await guest.queue(created.id).first?.addedBy == nil)
        let plain = try await server.client().createParty(provider: "demo")
        #expect(try await server.client().settings(plain.id).nicknames == false)
    }

    @Test func serverErrorMessagesSurfaceVerbatim() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let client = server.client()
        let created = try await client.createParty(provider: "demo")
        try await client.add(created.id, uri: "demo:track:3", deviceId: "a")
        do {
            try await client.add(created.id, uri: "demo:track:3", deviceId: "b")
            Issue.record("a duplicate was taken")
        } catch {
            #expect(error == .server(status: 409, message: "Song ist schon in der Warteschlange.", code: "duplicate", retryAfter: nil))
        }
    }

    @Test func nullAndForeignItemsInAListAreSkipped() throws {
        let json = #"{"tracks":{"items":[null,{"id":"1","uri":"demo:track:1","name":"A","artists":[{"name":"X"}],"album":{"name":"","images":[]},"duration_ms":1000},{"unavailable":true},7]}}"#
        let answer = try JSONDecoder().decode(SearchAnswer.self, from: Data(json.utf8))
        #expect(answer.tracks.items.elements.map(\.name) == ["A"])
    }
}
