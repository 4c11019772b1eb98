import Foundation
import PartyStore
import PartyTestSupport
import Testing

/// Half-written playback after a crash (writes into an ended party are in PartyLifetimeServiceTests).
@Suite("Attack: no half-written state")
struct ConsistencyAttackTests {
    @Test func aCurrentEntryThatNoLongerExistsIsRepairedOnStartInsteadOfPlayingSilence() throws {
        let first = try ServerProcess()
        let party = try TestParty(first)
        _ = try party.registerMonitor()
        try party.add(1)
        try party.add(2)
        #expect(try party.current()["track"] != nil)
        first.kill()
        // What a crash between "delete the finished entry" and "save the new playback" left behind.
        let store = try PartyStore(path: first.dataDirectory + "/musicvoting.sqlite")
        let current = try #require(try store.party(id: party.id)?.playback.currentEntryId)
        try store.deleteEntry(id: current)

        let second = try ServerProcess(dataDirectory: first.dataDirectory)
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        let state = try again.current()
        let track = state["track"] as? [String: Any]
        // The next song is current; with no TV connected to the new process it waits for it (R20a), never
        // "playing" a song that is gone.
        #expect(track?["uri"] as? String == "demo:track:2" && state["state"] as? String == "stalled"
                && state["stallReason"] as? String == "no-monitor", "the next song is up: \(state)")
    }
}
