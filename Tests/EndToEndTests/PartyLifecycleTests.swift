import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// A party's end as its streams see it; the API's answers (R1–R5, R24, R25, R27, R29) are `APIContractTests/PartyRoutesTests`.
@Suite("Party end on the event stream (R5)", .serialized, .alsoOnRoundRobinCluster)
struct PartyLifecycleTests {
    /// In process the stream is the server's own `EventStream` value; on the cluster, a socket to another instance.
    @Test func endingAPartyNotifiesAndClosesItsStreams() throws {
        let party = try TestParty.given()
        try party.add(3)
        let stream = try party.events()
        let ended = try party.host("DELETE", "")
        #expect(ended.status == 204)
        let event = try stream.waitFor("party-ended")
        #expect(event.payload["partyId"] as? String == party.id)
        #expect(stream.waitForEnd(), "the stream closes after party-ended")
    }

    /// SPEC "Server-Sent Events": a client reconnecting to an ended party gets `party-ended` once and a stream
    /// that stays open with keepalives, never a 404 it would retry in a tight loop.
    @Test func aStreamForAnEndedPartySaysSoOnceAndStaysOpen() throws {
        let party = try TestParty.given(.live)
        #expect(try party.host("DELETE", "").status == 204)
        for path in ["/api/spotify/events?partyId=\(party.id)&source=ios", "\(party.base)/events"] {
            let stream = try SSEClient(port: party.client.port, path: path)
            defer { stream.close() }
            #expect(stream.status == 200 && stream.headers["content-type"]?.hasPrefix("text/event-stream") == true, "\(path)")
            #expect(try stream.waitFor("party-ended").payload["partyId"] as? String == party.id)
            let pings = stream.commentLines.count
            #expect(eventually(timeout: 3 * patience) { stream.commentLines.count > pings }, "keepalives follow, the stream stays open")
            #expect(stream.received.count == 1, "party-ended once")
        }
        #expect(try party.client.get("/api/spotify/events?partyId=\(String(repeating: "0", count: 32))&source=web").status == 404,
                "an id that never was a party is still 404")
    }
}
