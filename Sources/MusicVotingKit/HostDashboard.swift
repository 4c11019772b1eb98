import Foundation
import Observation

/// The host dashboard's state, as the app's SwiftUI view observes it. Properties change only when a value really
/// changes (a repeated `progress` event redraws nothing).
@MainActor
@Observable
public final class HostDashboard: AssignsChanges {
    public enum PlayIcon: Sendable { case play, pause }

    public private(set) var current: QueueEntry?
    public private(set) var queue: [QueueEntry] = []
    public private(set) var isPlaying = false
    /// `playing`, `paused`, `stalled` or `idle` (R20a).
    public private(set) var state = "idle"
    public private(set) var deviceActive = false
    public private(set) var progressMs = 0
    public private(set) var durationMs = 0
    /// R20a: why nobody hears the song (`no-monitor`, `autoplay-blocked`, `monitor-silent`, `provider-error`).
    public private(set) var stallReason: String?
    public private(set) var message: String?
    public private(set) var ended = false

    @ObservationIgnored let client: MusicVotingClient
    @ObservationIgnored let partyId: String
    @ObservationIgnored let sessions: Sessions
    @ObservationIgnored let strings: KitStrings
    /// Pressed play once: later presses pause and resume instead of `start`.
    @ObservationIgnored private var started = false
    /// Reads overlap (an event's and a button's) and their answers may arrive in any order: only an answer newer than
    /// the one shown is applied, so a slow read from before a pause never shows the song playing again.
    @ObservationIgnored private var readsAsked = 0
    @ObservationIgnored private var readShown = 0

    public init(client: MusicVotingClient, partyId: String, sessions: Sessions, strings: KitStrings = KitStrings()) {
        self.client = client
        self.partyId = partyId
        self.sessions = sessions
        self.strings = strings
    }

    // MARK: What the view shows

    /// The host let it play: playing, or stalled (nobody hears it, but the host did not pause it; R20a).
    public var hostLetsItPlay: Bool { current != nil && (state == "playing" || state == "stalled") }
    /// ▶ when stopped or paused, ⏸ while playing (a stalled song is still one the host lets play).
    public var playIcon: PlayIcon { hostLetsItPlay ? .pause : .play }
    /// Play, pause and skip need a connected monitor (R21).
    public var controlsEnabled: Bool { deviceActive && !ended }
    public var controlsHint: String? { controlsEnabled || ended ? nil : strings[.noDevice] + " " + strings[.noDeviceHint] }
    /// Before the first play: the first queued song, shown as "now playing".
    public var preview: QueueEntry? { current == nil && !started ? queue.first : nil }
    /// The list under it: without the playing song and without the preview (never shown twice).
    public var upNext: [QueueEntry] {
        let waiting = queue.filter { !$0.isCurrentlyPlaying }
        return preview == nil ? waiting : Array(waiting.dropFirst())
    }
    public var progressText: String { "\(Self.clock(current == nil ? 0 : progressMs)) / \(Self.clock(current == nil ? 0 : durationMs))" }
    public var stallText: String? {
        switch stallReason {
        case "no-monitor"?: return strings[.stalledNoMonitor]
        case "autoplay-blocked"?: return strings[.stalledAutoplay]
        case "monitor-silent"?: return strings[.stalledSilent]
        case "provider-error"?: return strings[.stalledProvider]
        default: return nil
        }
    }

    // MARK: Actions

    public func load() async {
        guard !ended else { return }
        readsAsked += 1
        let read = readsAsked
        do {
            async let playback = client.current(partyId)
            async let entries = client.queue(partyId)
            let (answer, list) = (try await playback, try await entries)
            guard read > readShown else { return }
            readShown = read
            apply(answer)
            set(\.queue, list)
            await CoverCache.shared.prefetch(queue)
        } catch {
            handle(error)
        }
    }

    /// The first press starts the party; later ones pause or resume.
    public func playPause() async {
        guard controlsEnabled else { return }
        do {
            if !started && current == nil {
                _ = try await client.start(partyId)
                started = true
            } else if hostLetsItPlay {
                _ = try await client.pause(partyId)
            } else {
                _ = try await client.resume(partyId)
            }
            started = true
            await load()
        } catch {
            handle(error)
        }
    }

    public func skip() async {
        guard controlsEnabled else { return }
        do {
            _ = try await client.next(partyId)
            started = true
            await load()
        } catch { handle(error) }
    }

    public func remove(_ entry: QueueEntry) async {
        guard !ended else { return }
        do {
            try await client.remove(partyId, uri: entry.uri)
            await load()
        } catch { handle(error) }
    }

    /// Ends the party with the host PIN; then the session is gone and the dashboard makes no further call.
    public func endParty() async {
        guard !ended else { return }
        do {
            try await client.endParty(partyId)
            finish()
        } catch { handle(error) }
    }

    /// Live events of this party's stream.
    public func handle(_ event: PartyEvent) async {
        guard !ended else { return }
        switch event.type {
        case "party-ended":
            if event.partyId == partyId { finish() }
        case "progress":
            if let position = event.payload["position"].flatMap(Int.init) { set(\.progressMs, position) }
            if let duration = event.payload["duration"].flatMap(Int.init), duration > 0 { set(\.durationMs, duration) }
        case "track-changed":
            set(\.progressMs, 0)
            await load()
        case "device-changed":
            set(\.deviceActive, event.payload["deviceActive"] == "true")
        case "playback-stalled":
            set(\.stallReason, event.payload["reason"])
            set(\.isPlaying, false)
            set(\.state, "stalled")
        default:
            await load()
        }
    }

    // MARK: State

    private func apply(_ playback: CurrentPlayback) {
        set(\.current, playback.track)
        set(\.isPlaying, playback.isPlaying)
        set(\.state, playback.state ?? (playback.track == nil ? "idle" : playback.isPlaying ? "playing" : "paused"))
        set(\.deviceActive, playback.deviceActive)
        set(\.stallReason, playback.state == "stalled" ? playback.stallReason : nil)
        if playback.track != nil { started = true }
        set(\.progressMs, playback.track == nil ? 0 : playback.progressMs)
        set(\.durationMs, playback.track?.track.durationMs ?? 0)
    }

    private func finish() {
        sessions.leaveHost()
        set(\.ended, true)
        set(\.message, strings[.partyEnded])
    }

    private func handle(_ error: APIError) {
        if error.status == 404 { finish(); return }
        set(\.message, error.serverMessage ?? strings[.backendUnreachable])
    }

    private func handle(_ error: any Error) {
        handle(error as? APIError ?? .network("\(error)"))
    }


    static func clock(_ milliseconds: Int) -> String {
        let seconds = max(0, milliseconds / 1000)
        return "\(seconds / 60):" + String(format: "%02d", seconds % 60)
    }
}
