import Foundation
import Testing
@testable import PartyCore

@Suite("R16, R19, R20 playback state")
struct PlaybackTests {
    @Test func positionIsNowMinusStartedAtWhilePlaying() {
        var playback = Playback()
        playback.play(entryId: 1, at: epoch)
        #expect(playback.positionMs(at: epoch.addingTimeInterval(12.5)) == 12_500)
    }

    @Test func pauseFreezesThePositionAndResumeContinuesIt() {
        var playback = Playback()
        playback.play(entryId: 1, at: epoch)
        playback.pause(at: epoch.addingTimeInterval(10))
        #expect(!playback.isPlaying)
        #expect(playback.positionMs(at: epoch.addingTimeInterval(100)) == 10_000)
        playback.resume(at: epoch.addingTimeInterval(100))
        #expect(playback.currentEntryId == 1)
        #expect(playback.positionMs(at: epoch.addingTimeInterval(105)) == 15_000)
    }

    @Test func playFromAPositionStartsThere() {
        var playback = Playback()
        playback.play(entryId: 3, fromMs: 42_000, at: epoch)
        #expect(playback.positionMs(at: epoch.addingTimeInterval(1)) == 43_000)
    }

    @Test func aSecondAdvanceWithinThreeSecondsIsANoOp() {
        var playback = Playback()
        playback.lastAdvanceAt = epoch
        #expect(playback.advanceIsDuplicate(at: epoch.addingTimeInterval(2.9)))
        #expect(!playback.advanceIsDuplicate(at: epoch.addingTimeInterval(3)))
        #expect(!Playback().advanceIsDuplicate(at: epoch))
    }

    @Test func idleMeansNothingPlayingAndNotPausedByTheHost() {
        var playback = Playback()
        #expect(playback.isIdle)
        playback.play(entryId: 1, at: epoch)
        #expect(!playback.isIdle)
        playback.pause(at: epoch)
        playback.stop()
        #expect(!playback.isIdle, "a host pause keeps the party from starting by itself")
        playback.resume(at: epoch)
        playback.play(entryId: 2, at: epoch)
        playback.stop()
        #expect(playback.isIdle)
    }
}

@Suite("R6 party lifetime")
struct PartyLifetimeTests {
    let party = Party(id: "p", guestPin: "01234", hostPin: "56789", provider: "demo", createdAt: epoch)

    @Test func aPartyEndsByItselfTwoDaysAfterCreation() {
        #expect(!party.isDueToAutoEnd(at: epoch.addingTimeInterval(2 * 86_400 - 1)))
        #expect(party.isDueToAutoEnd(at: epoch.addingTimeInterval(2 * 86_400)))
    }

    @Test func anEndedPartyIsPurgedOneMonthAfterItEnded() {
        var ended = party
        #expect(!ended.isDueForPurge(at: epoch.addingTimeInterval(90 * 86_400)))
        ended.endedAt = epoch.addingTimeInterval(86_400)
        #expect(!ended.isDueToAutoEnd(at: epoch.addingTimeInterval(10 * 86_400)))
        #expect(!ended.isDueForPurge(at: epoch.addingTimeInterval(30 * 86_400)))
        #expect(ended.isDueForPurge(at: epoch.addingTimeInterval(31 * 86_400)))
    }
}

@Suite("Provider tokens")
struct ProviderTokensTests {
    @Test func tokensAreRefreshedAMinuteBeforeTheyExpire() {
        let tokens = ProviderTokens(provider: "spotify", accessToken: "a", refreshToken: "r", expiresAt: epoch.addingTimeInterval(120))
        #expect(!tokens.needsRefresh(at: epoch))
        #expect(tokens.needsRefresh(at: epoch.addingTimeInterval(61)))
        #expect(ProviderTokens(provider: "spotify", accessToken: nil, refreshToken: "r", expiresAt: nil).needsRefresh(at: epoch))
    }

    /// R20: who asks decides whether the current entry is left.
    @Test func theHostAlwaysSkipsSongEndsNeedTheirEntryOlderPlayersAreDebounced() {
        let now = Date(timeIntervalSince1970: 1_000)
        let playing = Playback(currentEntryId: 7, startedAt: now, isPlaying: true, lastAdvanceAt: now.addingTimeInterval(-1))
        #expect(playing.accepts(.host, at: now))
        #expect(playing.accepts(.songEnded(entryId: 7), at: now), "the exact entry advances even right after an advance")
        #expect(!playing.accepts(.songEnded(entryId: 6), at: now), "a stale report does nothing")
        #expect(!playing.accepts(.songEndedWithoutEntry, at: now), "within 3 s of the last advance")
        #expect(playing.accepts(.songEndedWithoutEntry, at: now.addingTimeInterval(2.5)))
        #expect(!Playback().accepts(.songEnded(entryId: 7), at: now), "nothing current: nothing ended")
    }
}


@Suite("R20a stalled playback")
struct StalledPlaybackTests {
    let start = Date(timeIntervalSince1970: 1_000_000)

    @Test func theStateFollowsEntryPauseAndStall() {
        var playback = Playback()
        #expect(playback.state(stallReason: nil) == (.idle, nil))
        playback.play(entryId: 7, at: start)
        #expect(playback.state(stallReason: nil) == (.playing, nil))
        playback.stall(atMs: 4_000)
        #expect(playback.isStalled && !playback.isPlaying)
        #expect(playback.state(stallReason: nil) == (.stalled, .noMonitor), "a stall of unknown reason (after a restart)")
        #expect(playback.state(stallReason: .autoplayBlocked) == (.stalled, .autoplayBlocked))
        playback.pause(at: start.addingTimeInterval(60))
        #expect(playback.state(stallReason: .autoplayBlocked) == (.paused, nil), "the host's pause is no stall")
    }

    @Test func aStalledSongKeepsItsPositionAndContinuesFromWhereTheAudioIs() {
        var playback = Playback()
        playback.play(entryId: 7, at: start)
        playback.stall(atMs: 4_000)
        #expect(playback.positionMs(at: start.addingTimeInterval(100)) == 4_000, "frozen, not counted on")
        playback.unstall(atMs: 4_100, at: start.addingTimeInterval(100))
        #expect(playback.isPlaying && playback.currentEntryId == 7)
        #expect(playback.positionMs(at: start.addingTimeInterval(101)) == 5_100)
        playback.pause(at: start.addingTimeInterval(101))
        playback.unstall(atMs: 0, at: start.addingTimeInterval(102))
        #expect(!playback.isPlaying, "a host pause is not undone by the monitor")
        var idle = Playback()
        idle.stall(atMs: 10)
        #expect(idle.state(stallReason: nil) == (.idle, nil))
    }
}
