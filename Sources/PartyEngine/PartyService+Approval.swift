import Foundation
import PartyCore

/// R35: the songs waiting for the host's approval.
extension PartyService {
    /// The party's waiting songs in the order they were asked for; with `adder`, only that guest's.
    public func pendingSongs(of party: Party, adder: String? = nil) throws -> [PendingSong] {
        try withState { try $0.store.pendingSongs(partyId: party.id, adder: adder) }
    }

    /// Lets a waiting song into the queue (R9 as if added now); an idle party starts playing it (R16).
    public func approve(pendingId: Int64, party: Party) throws {
        if try write(partyId: party.id, { try $0.approve(pendingId: pendingId, party: party) }) { _ = try startAndRefill(party) }
    }

    public func decline(pendingId: Int64, party: Party) throws {
        try write(partyId: party.id) { try $0.decline(pendingId: pendingId, party: party) }
    }
}
