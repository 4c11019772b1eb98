/// Every way a party rule can refuse a request. The server maps each case to one HTTP answer.
public enum PartyError: Error, Equatable, Sendable {
    case missingProvider
    case invalidProvider(offered: [String])
    case pinsExhausted
    case partyNotFound
    /// R10/R10a: the song (or a version of it) waits already; `position` is its 1-based place among the waiting.
    case duplicate(existingUri: String, position: Int)
    case rateLimited(retryAfterSeconds: Int)
    /// A device id new to the party past the ration of new guests (`GuestLimits`).
    case tooManyNewGuests(retryAfterSeconds: Int)
    case blacklisted
    /// R30: the host banned this device's songs; its adds, likes and vetoes are refused for the rest of the party.
    case banned
    /// R17a: the party has the crowd veto off (`vetoShare` 0).
    case vetoOff
    /// R33: the party keeps no history (`history` off).
    case historyOff
    /// R17a: nobody vetoes their own song.
    case ownSong
    /// R30: an auto-filled entry has no guest who added it.
    case notAGuestSong
    case notInQueue
    /// R35: the song waits for the host's approval already (R10 among the waiting-for-approval songs).
    case alreadyPending
    /// R36: not a nickname (empty, too long, or characters that hide or reorder text).
    case invalidNickname
    /// R36 with R12: the nickname contains a blacklist word.
    case nicknameNotAllowed
    /// R36: another guest of the party has this nickname (in the blacklist's folds).
    case nicknameTaken
    /// R36: the party keeps its guests anonymous (`nicknames` off).
    case nicknamesOff
    /// R35: no such song waits for approval (approved, declined or withdrawn meanwhile).
    case notPending
    /// R18b: a guest removes only its own waiting entry, never another's or the playing one.
    case notOwnEntry
    case noPlaybackDevice
    case hostAuthorizationMissing
    case hostPinWrong
    case tooManyAttempts(retryAfterSeconds: Int)
    /// Many clients guess this party's host PIN; one that never proved it waits.
    case pinGuessingUnderWay(retryAfterSeconds: Int)
    /// The party's lifetime budget of wrong host PINs is spent; only clients that proved it get in.
    case pinChecksExhausted
    case noTracks
    /// One add names more uris than a device may add in a minute.
    case tooManyUris(limit: Int)
    case missingUri
    case missingUriOrDevice
    case trackNotFound
    case invalidUri
    case invalidInput(String)
    /// An address, the party or the server holds as many event streams as it may.
    case tooManyStreams
    /// Party creation is throttled per address and for the whole server, and active parties are capped.
    case tooManyParties(retryAfterSeconds: Int)
    /// A TV pairing code that no waiting TV shows (wrong, expired or already used).
    case pairingNotFound
    /// Too many TV pairings opened from one address, or waiting at once.
    case tooManyPairings(retryAfterSeconds: Int)
    /// The party's TV is connected; a pairing replaces it only when the host says so.
    case monitorConnected
    /// This TV's token was replaced by another TV's pairing.
    case monitorReplaced
    /// R34: the party has as many live co-host links as it may.
    case cohostLimit(limit: Int)
    /// R34: a co-host asked for what only the host may do (end, settings, co-hosts, default playlist, PINs).
    case hostOnly
    /// R34: the host revoked this co-host link.
    case cohostRevoked
    /// R34: no co-host link of the party has this handle or token.
    case cohostNotFound
}
