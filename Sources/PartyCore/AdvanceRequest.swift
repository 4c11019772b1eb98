import Foundation

/// R20: who asks to move past the current entry, which decides whether it happens.
public enum AdvanceRequest: Equatable, Sendable {
    /// The host skips: always advances, so two skips are two songs.
    case host
    /// The monitor reports that this entry ended: advances only while it is still current, so a retried
    /// report (after a network drop) is a harmless no-op.
    case songEnded(entryId: Int64)
    /// R17a: the crowd vetoed this entry: a host `next` while it is still current (two vetoes past the threshold
    /// that race skip one song, never the one after it).
    case crowdVeto(entryId: Int64)
    /// An older player's song end without an entry: a repeat within 3 s of an advance is a no-op.
    case songEndedWithoutEntry
}

extension Playback {
    /// Whether `request` moves past the current entry now.
    public func accepts(_ request: AdvanceRequest, at now: Date) -> Bool {
        switch request {
        case .host: return true
        case .songEnded(let entryId), .crowdVeto(let entryId): return currentEntryId == entryId
        case .songEndedWithoutEntry: return !advanceIsDuplicate(at: now)
        }
    }
}
