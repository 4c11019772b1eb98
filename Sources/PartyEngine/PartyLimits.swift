import PartyCore

/// Limits that keep one phone from starving the party; 0 turns a per-address limit off.
public struct PartyLimits: Sendable, Equatable {
    public var connectionsPerAddress = 64
    public var streamsPerAddress = 8
    public var streamsPerParty = 1_000
    public var activeParties = 5_000
    /// New guests one network may bring into a party in a minute (`GuestLimits`); 0 = no ration (a load generator).
    public var newGuestsPerNetwork = GuestLimits.newGuestsPerNetwork

    public init() {}
}
