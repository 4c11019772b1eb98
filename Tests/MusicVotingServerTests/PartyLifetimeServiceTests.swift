import Foundation
import PartyCore
import Testing
@testable import MusicVotingServer
@testable import PartyEngine

/// A clock the test moves by hand. `@unchecked Sendable`: `lock` guards `current`.
final class ManualClock: PartyClock, @unchecked Sendable {
    private let lock = NSLock()
    private var current: Date
    init(_ start: Date) { current = start }
    func now() -> Date { lock.lock(); defer { lock.unlock() }; return current }
    func advance(by seconds: TimeInterval) { lock.lock(); current += seconds; lock.unlock() }
}

private func makeApplication(clock: ManualClock) throws -> Application {
    var configuration = Configuration()
    configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-app-\(UUID().uuidString)").path
    return try Application(configuration: configuration, clock: clock)
}

@Suite("R6 through the service, with an injected clock")
struct PartyLifetimeServiceTests {
    @Test func aPartyEndsTwoDaysAfterCreationAndIsPurgedAMonthLater() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let application = try makeApplication(clock: clock)
        let service = application.service
        let party = try service.createParty(provider: "demo")
        try service.add(uris: ["demo:track:1"], deviceId: "guest", party: party)
        clock.advance(by: 2 * 86_400 - 60)
        #expect(try service.activeParty(id: party.id).id == party.id)
        try service.expireParties()
        #expect(try service.withState { try $0.store.party(id: party.id) }?.isActive == true, "not yet")

        clock.advance(by: 60)
        try service.expireParties()
        let ended = try #require(try service.withState { try $0.store.party(id: party.id) })
        #expect(!ended.isActive && ended.endedAt == clock.now())
        #expect(try service.withState { try $0.store.entries(partyId: party.id) }.isEmpty, "R5 effects: the queue is emptied")
        #expect(throws: PartyError.partyNotFound) { try service.activeParty(id: party.id) }
        #expect(throws: PartyError.partyNotFound) { try service.joinParty(guestPin: party.guestPin, clientAddress: "x") }

        clock.advance(by: 30 * 86_400 + 1)
        try service.expireParties()
        #expect(try service.withState { try $0.store.party(id: party.id) } == nil, "deleted a month after it ended")
    }

    @Test func theHistoryOfAPartyGoesWithItsPurge() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let service = try makeApplication(clock: clock).service
        let party = try service.createParty(provider: "demo", settings: PartySettings(history: true))
        let track = Track(id: "1", uri: "demo:track:1", name: "One", artists: ["A"], album: "B", imageURL: nil, durationMs: 1_000)
        try service.withState { try $0.store.recordPlayedSong(PlayedSong(track: track, startedAt: clock.now(), likeCount: 1, ended: .finished),
                                                               partyId: party.id) }
        try service.end(party)
        #expect(try service.recap(partyId: party.id).songs.map(\.track.uri) == ["demo:track:1"], "R33: kept after the end")
        clock.advance(by: 30 * 86_400 + 1)
        try service.expireParties()
        #expect(try service.withState { try $0.store.playedSongs(partyId: party.id) }.isEmpty, "R6: deleted with the party")
    }

    @Test func anOverduePartyIsEndedWhenItIsNextUsedEvenBeforeTheTimerRuns() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let application = try makeApplication(clock: clock)
        let party = try application.service.createParty(provider: "demo")
        clock.advance(by: 3 * 86_400)
        #expect(throws: PartyError.partyNotFound) { try application.service.activeParty(id: party.id) }
        #expect(try application.service.withState { try $0.store.party(id: party.id) }?.isActive == false)
        let fresh = try application.service.createParty(provider: "demo")
        #expect(try application.service.activeParty(id: fresh.id).id == fresh.id)
    }

    @Test func theAddLimitSlidesWithTheInjectedClock() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let service = try makeApplication(clock: clock).service
        let party = try service.createParty(provider: "demo")
        for number in 1...10 { try service.add(uris: ["demo:track:\(number)"], deviceId: "phone", party: party) }
        #expect(throws: PartyError.rateLimited(retryAfterSeconds: 60)) { try service.add(uris: ["demo:track:11"], deviceId: "phone", party: party) }
        clock.advance(by: 60)
        try service.add(uris: ["demo:track:11"], deviceId: "phone", party: party)
    }
}

/// Always the same numbers: every party would get the same PINs.
private struct StuckGenerator: RandomNumberGenerator {
    mutating func next() -> UInt64 { 7 }
}

@Suite("R2 PIN exhaustion through the service")
struct PinExhaustionTests {
    @Test func whenNoUniquePinsAreLeftCreatingAPartyAnswers503WithTheSpecMessage() throws {
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-app-\(UUID().uuidString)").path
        let service = try Application(configuration: configuration, clock: SystemClock(), random: StuckGenerator()).service
        #expect(throws: PartyError.pinsExhausted, "guest and host PIN would be equal") { try service.createParty(provider: "demo") }
        let error = ErrorMapping.httpError(PartyError.pinsExhausted)
        #expect(error.status == 503 && error.message == "Could not generate unique PINs — please retry")
    }
}

@Suite("Party creation is throttled")
struct PartyCreationThrottleTests {
    @Test func tenPartiesAMinuteFromOneAddressSixtyInAllButNeverLockingOutANewNetworkAndAtMostTheActiveCap() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let service = try makeApplication(clock: clock).service
        for _ in 0..<10 { _ = try service.createParty(provider: "demo", clientAddress: "10.0.0.1") }
        #expect(throws: PartyError.tooManyParties(retryAfterSeconds: 60)) { try service.createParty(provider: "demo", clientAddress: "10.0.0.1") }
        for index in 0..<10 { _ = try service.createParty(provider: "demo", clientAddress: "10.0.0.\(index + 2)") }
        #expect(throws: PartyError.tooManyParties(retryAfterSeconds: 60), "20 a minute from one network") {
            try service.createParty(provider: "demo", clientAddress: "10.0.0.99")
        }
        for index in 0..<40 { _ = try service.createParty(provider: "demo", clientAddress: "10.\(index + 1).0.1") }
        #expect(throws: PartyError.tooManyParties(retryAfterSeconds: 60), "61st in a minute from a network that created one already") {
            try service.createParty(provider: "demo", clientAddress: "10.1.0.2")
        }
        _ = try service.createParty(provider: "demo", clientAddress: "172.16.5.5")
        clock.advance(by: 61)
        _ = try service.createParty(provider: "demo", clientAddress: "10.0.0.1")
        service.maxActiveParties = 62
        #expect(throws: PartyError.tooManyParties(retryAfterSeconds: 60), "no more than the cap at once") {
            try service.createParty(provider: "demo", clientAddress: "192.168.0.1")
        }
    }
}

@Suite("Writes never land in an ended party")
struct EndedPartyWriteTests {
    /// The add looked the party up (active), then the host ended it before the add took the lock.
    @Test func anAddThatRacesTheEndOfThePartyIsRefusedAndLeavesNoRow() throws {
        let service = try makeApplication(clock: ManualClock(Date(timeIntervalSince1970: 1_800_000_000))).service
        let party = try service.createParty(provider: "demo")
        let stale = try service.activeParty(id: party.id)
        try service.end(party)
        #expect(throws: PartyError.partyNotFound) { try service.add(uris: ["demo:track:3"], deviceId: "late", party: stale) }
        #expect(try service.withState { try $0.store.entries(partyId: party.id) }.isEmpty)
        #expect(throws: PartyError.partyNotFound) { try service.startAndRefill(stale) }
    }

    /// What an instance keeps in memory for a party (guests' pending activity, banned adders) goes at the next upkeep
    /// once the party ended without it (another instance ended it); an active party's stays.
    @Test func memoryKeptForAPartyEndedElsewhereGoesAtTheNextUpkeep() throws {
        let clock = ManualClock(Date(timeIntervalSince1970: 1_800_000_000))
        let service = try makeApplication(clock: clock).service
        let ended = try service.createParty(provider: "demo"), going = try service.createParty(provider: "demo")
        for party in [ended, going] {
            try service.add(uris: ["demo:track:1"], deviceId: "guest", party: party)
            _ = try service.vote(uri: "demo:track:1", deviceId: "liker", clientAddress: "10.0.0.1", party: party)
        }
        #expect(service.withState { Set($0.live.keys) } == [ended.id, going.id])
        try service.withState { state in try state.store.end(partyId: ended.id, at: state.now) }
        try service.expireParties()
        #expect(service.withState { Set($0.live.keys) } == [going.id])
    }
}
