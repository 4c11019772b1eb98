import Foundation
import Testing
@testable import MusicVotingKit

@Suite("Event stream")
struct EventStreamTests {
    @Test func framesSplitAnywhereParseWithIdsCommentsAndStringPayloads() {
        var parser = SSEParser()
        let frames = ": ping\n\nid: 41\ndata: {\"type\":\"vote-updated\",\"timestamp\":1,\"payload\":{\"partyId\":\"p\",\"likeCount\":\"3\",\"n\":3}}\n\n"
            + "id: 42\r\ndata: {\"type\":\"queue-updated\",\r\ndata: \"payload\":{\"partyId\":\"p\"}}\r\n\r\n"
        var events: [PartyEvent] = []
        for byte in Array(frames.utf8) { events += parser.feed([byte]) }
        #expect(events == [PartyEvent(id: "41", type: "vote-updated", payload: ["partyId": "p", "likeCount": "3"]),
                           PartyEvent(id: "42", type: "queue-updated", payload: ["partyId": "p"])])
        #expect(parser.lastEventId == "42")
    }

    @Test func aReconnectAsksForWhatCameAfterTheLastEventSeen() {
        let url = URL(string: "http://127.0.0.1:1/api/spotify/events?partyId=p&source=ios")!
        #expect(PartyEventStream.request(url: url, lastEventId: nil).value(forHTTPHeaderField: "Last-Event-ID") == nil)
        var parser = SSEParser()
        _ = parser.feed(Array("id: 1733300000123\ndata: {\"type\":\"queue-updated\",\"payload\":{}}\n\n".utf8))
        let again = PartyEventStream.request(url: url, lastEventId: SSEParser(resumingAfter: parser.lastEventId).lastEventId)
        #expect(again.value(forHTTPHeaderField: "Last-Event-ID") == "1733300000123")
        #expect(again.timeoutInterval >= 24 * 3600, "no request timeout on a stream")
    }

    @Test @MainActor func liveEventsArriveAndAReconnectAfterARestartResumesWithoutLosingState() async throws {
        let first = try KitServer()
        let port = first.port
        let data = first.data
        let (sessions, _) = temporarySessions()
        let created = try await first.client().createParty(provider: "demo")
        let party = GuestParty(client: first.client(), partyId: created.id, sessions: sessions, strings: german)
        let stream = PartyEventStream(baseURL: first.base, partyId: created.id, reconnectDelay: 0.5)
        stream.start()
        defer { stream.stop() }
        let seen = EventLog()
        let reader = Task { @MainActor in
            for await event in stream.events {
                seen.append(event)
                await party.handle(event)
            }
        }
        defer { reader.cancel() }
        #expect(await eventually { seen.events.contains { $0.type == PartyEvent.connected } }, "the stream is open")
        try await first.client().add(created.id, uri: "demo:track:1", deviceId: "a")
        #expect(await eventually { party.queue.map(\.uri) == ["demo:track:1"] }, "queue-updated reached the kit")
        // The page state may come from the read the connected event starts; the event itself follows.
        #expect(await eventually { seen.events.contains { $0.type == "queue-updated" && $0.id != nil } }, "the event, with its id")

        // The server restarts on the same port; a song is added while the stream is down.
        first.stop()
        let second = try KitServer(data: data, port: port)
        defer { second.stop() }
        try await second.client().add(created.id, uri: "demo:track:2", deviceId: "b")
        #expect(await eventually(10) { party.queue.map(\.uri) == ["demo:track:1", "demo:track:2"] }, "state after the reconnect")
        #expect(await eventually { stream.connections >= 2 && seen.events.filter { $0.type == PartyEvent.connected }.count >= 2 },
                "a second connection, announced")
        // And the stream is live again.
        _ = try await second.client().vote(created.id, uri: "demo:track:2", deviceId: "c")
        #expect(await eventually { party.queue.first?.uri == "demo:track:2" && party.queue.first?.likeCount == 1 })
    }
}

@MainActor
final class EventLog {
    private(set) var events: [PartyEvent] = []
    func append(_ event: PartyEvent) { events.append(event) }
}

#if canImport(FoundationNetworking)
@Suite("The Linux stream reader")
struct SocketReaderTests {
    @Test func chunkedBodiesSplitAnywhereDecodeToTheirBytes() {
        let body = Array("6\r\n: ping\r\n11\r\nid: 7\ndata: {}\n\n\n\r\n0\r\n\r\n".utf8)
        var decoder = ChunkedDecoder()
        var out: [UInt8] = []
        for byte in body { out += decoder.feed([byte]) ?? [] }
        #expect(String(decoding: out, as: UTF8.self) == ": ping" + "id: 7\ndata: {}\n\n\n")
        var broken = ChunkedDecoder()
        #expect(broken.feed(Array("zz\r\nabc".utf8)) == nil, "a size that is not hex drops the connection")
    }
}
#endif
