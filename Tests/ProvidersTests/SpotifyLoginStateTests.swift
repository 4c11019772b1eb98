import Foundation
import Providers
import Testing

/// OAuth states are bounded per party and in all, and expire without a scan of all of them.
@Suite("Spotify OAuth states are bounded")
struct SpotifyLoginStateTests {
    let start = Date(timeIntervalSince1970: 1_800_000_000)

    @Test func aPartyKeepsItsNewestEightStates() throws {
        let states = SpotifyLoginState()
        let made = try (0..<20).map { _ in try states.begin(partyId: "p", source: "web", installationId: nil, now: start).state }
        #expect(states.pendingCount == SpotifyLoginState.perParty)
        #expect(throws: SpotifyLoginState.Failure.invalid, "an old one was pushed out") { try states.redeem(made[0], now: start) }
        #expect(try states.redeem(made[19], now: start).partyId == "p")
        #expect(throws: SpotifyLoginState.Failure.invalid, "single use") { try states.redeem(made[19], now: start) }
    }

    /// Logins anybody began (the first needs no PIN) never push out the one the host began.
    @Test func guestsNeverPushTheHostsPendingLoginOut() throws {
        let states = SpotifyLoginState()
        let host = try states.begin(partyId: "p", source: "web", installationId: nil, byHost: true, now: start).state
        let guests = try (0..<20).map { _ in try states.begin(partyId: "p", source: "web", installationId: nil, now: start).state }
        #expect(try states.redeem(host, now: start).partyId == "p", "the host's login is still pending")
        #expect(throws: SpotifyLoginState.Failure.invalid) { try states.redeem(guests[0], now: start) }
        let hosts = try (0..<9).map { _ in try states.begin(partyId: "p", source: "web", installationId: nil, byHost: true, now: start).state }
        #expect(throws: SpotifyLoginState.Failure.invalid, "the host's own pool keeps its newest eight") { try states.redeem(hosts[0], now: start) }
        #expect(try states.redeem(hosts[8], now: start).partyId == "p" && states.redeem(guests[19], now: start).partyId == "p")
    }

    @Test func theServerKeepsAtMostItsCapacityAndExpiredStatesLeave() throws {
        let states = SpotifyLoginState()
        for index in 0..<(SpotifyLoginState.capacity + 500) {
            _ = try states.begin(partyId: "p\(index)", source: "web", installationId: nil, now: start)
        }
        #expect(states.pendingCount == SpotifyLoginState.capacity)
        let late = try states.begin(partyId: "q", source: "ios", installationId: "phone", now: start.addingTimeInterval(601))
        #expect(states.pendingCount == 1, "the expired ones left")
        #expect(try states.redeem(late.state, now: start.addingTimeInterval(602)).installationId == "phone")
    }
}
