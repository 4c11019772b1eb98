import Foundation
import PartyCore

extension PartyService {
    /// R33: the songs the party heard, in the order they started; `.historyOff` while the party keeps none.
    public func history(of party: Party) throws -> [PlayedSong] {
        try withState { state in
            guard try state.store.party(id: party.id)?.settings.history == true else { throw PartyError.historyOff }
            return try state.store.playedSongs(partyId: party.id)
        }
    }

    /// R33: the recap every page shows once the party ended. Only an ended party that kept its history has one (until
    /// its purge, R6); a running party, or one without history, is `.partyNotFound`, as R5 answers for ended parties.
    public func recap(partyId: String) throws -> PartyRecap {
        try withState { state in
            guard let party = try state.store.party(id: partyId), !party.isActive, party.settings.history else {
                throw PartyError.partyNotFound
            }
            return PartyRecap(songs: try state.store.playedSongs(partyId: partyId), guests: try state.store.guestCount(partyId: partyId))
        }
    }
}
