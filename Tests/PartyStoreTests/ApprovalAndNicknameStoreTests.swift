import Foundation
import PartyCore
@testable import PartyStore
import Testing
import TestSupport

/// R35 and R36 in the store, on SQLite and PostgreSQL: the waiting songs, the trusted guests and the nicknames, kept
/// with the party and gone with it (R5 empties the waiting songs, R6's purge the rest).
@Suite("R35, R36 in the store")
struct ApprovalAndNicknameStoreTests {
    static let epoch = Date(timeIntervalSince1970: 1_800_000_000)

    static func party(_ id: String, settings: PartySettings) -> Party {
        Party(id: id, guestPin: "1\(id.count)111", hostPin: "2\(id.count)222", provider: "demo", createdAt: Self.epoch, settings: settings)
    }

    static let song = Track(id: "1", uri: "demo:track:1", name: "Song", artists: ["A", "B"], album: "Album", imageURL: nil,
                            durationMs: 30_000, isrc: "XX0000000001")

    @Test(arguments: Backend.allCases)
    func settingsWaitingSongsTrustAndNicknamesAreKeptAndGoWithTheParty(_ backend: Backend) throws {
        let epoch = Self.epoch
        let store = try backend.newStore()
        try store.insert(Self.party("p1", settings: PartySettings(approval: .newGuests, nicknames: true)))
        #expect(try store.party(id: "p1")?.settings.approval == .newGuests && store.party(id: "p1")?.settings.nicknames == true)
        try store.save(settings: PartySettings(approval: .all), partyId: "p1")
        #expect(try store.party(id: "p1")?.settings == PartySettings(approval: .all))

        let id = try store.insertPending(partyId: "p1", track: Self.song, requestedAt: epoch, adder: "guest-1")
        _ = try store.insertPending(partyId: "p1", track: Self.song, requestedAt: epoch.addingTimeInterval(1), adder: "guest-2")
        #expect(try store.pendingSong(id: id, partyId: "p1") == PendingSong(id: id, track: Self.song, requestedAt: epoch, adder: "guest-1"))
        #expect(try store.pendingSong(id: id, partyId: "other") == nil, "a waiting song is its party's only")
        #expect(try store.pendingSongs(partyId: "p1", adder: "guest-2").map(\.adder) == ["guest-2"])
        #expect(try store.pendingCount(partyId: "p1") == 2)
        try store.approveAdder("guest-1", partyId: "p1")
        try store.approveAdder("guest-1", partyId: "p1")
        #expect(try store.isApprovedAdder("guest-1", partyId: "p1") && !store.isApprovedAdder("guest-2", partyId: "p1"))

        try store.admitGuest(deviceId: "guest-1", partyId: "p1", address: "10.0.0.1", at: epoch)
        let anna = try #require(Nickname("DJ Anna"))
        try store.setNickname(anna, deviceId: "guest-1", partyId: "p1")
        #expect(try store.nicknames(partyId: "p1") == ["guest-1": "DJ Anna"])
        #expect(try store.nicknameHolder(#require(Nickname("dj-anna")), partyId: "p1") == "guest-1")
        try store.admitGuest(deviceId: "guest-2", partyId: "p1", address: "10.0.0.2", at: epoch)
        #expect(throws: (any Error).self, "the index keeps a nickname the party's once") {
            try store.setNickname(anna, deviceId: "guest-2", partyId: "p1")
        }

        try store.end(partyId: "p1", at: epoch)
        #expect(try store.pendingCount(partyId: "p1") == 0, "R5 empties the waiting songs")
        #expect(try store.purge(endedBefore: epoch.addingTimeInterval(1)) == 1)
        #expect(try !store.isApprovedAdder("guest-1", partyId: "p1") && store.nicknames(partyId: "p1").isEmpty, "R6")
    }
}
