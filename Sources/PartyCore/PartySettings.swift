/// A party's own rules the host may change while it runs (R9b, R17a, R33, R35, R36). The API defaults keep R9 and the
/// older clients exactly as they were; the start page offers its own (`offered`).
public struct PartySettings: Equatable, Sendable {
    /// R9b: fair order among guest songs with equal likes.
    public var fairQueue: Bool
    /// R17a: the share of active guests whose vetoes skip a song (0 = off).
    public var vetoShare: Double
    /// R33: remember each song that played; off keeps R14 ("no history").
    public var history: Bool
    /// R35: whose adds wait for the host's approval.
    public var approval: ApprovalMode
    /// R36: guests may name themselves, and entries show who added them; off keeps every guest anonymous.
    public var nicknames: Bool

    public init(fairQueue: Bool = false, vetoShare: Double = 0, history: Bool = false, approval: ApprovalMode = .off,
                nicknames: Bool = false) {
        self.fairQueue = fairQueue
        self.vetoShare = vetoShare
        self.history = history
        self.approval = approval
        self.nicknames = nicknames
    }

    /// What a party created through the API without settings gets.
    public static let apiDefault = PartySettings()
    /// What the start page offers (SPEC: fair order on, a veto share of 0.4; the history, for the recap at the end).
    public static let offered = PartySettings(fairQueue: true, vetoShare: 0.4, history: true)

    /// R17a: a share is a finite number from 0 to 1.
    public static func isValid(vetoShare: Double) -> Bool { vetoShare.isFinite && vetoShare >= 0 && vetoShare <= 1 }
}
