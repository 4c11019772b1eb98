/// Limits that keep one phone from starving the party (issue 10); 0 turns a per-address limit off.
public struct PartyLimits: Sendable, Equatable {
    public var connectionsPerAddress = 64
    public var streamsPerAddress = 8
    public var streamsPerParty = 1_000
    public var activeParties = 5_000

    public init() {}
}
