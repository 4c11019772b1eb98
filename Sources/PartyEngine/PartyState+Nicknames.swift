import Foundation
import PartyCore

extension PartyState {
    /// R36: sets (nil: clears) a guest's nickname. In order: the party must allow nicknames (409), the guest must not be
    /// banned (R30, by device: a nickname never stands for anyone), the change spends a like toggle (the guest's
    /// budget for quick inputs, R17), then the text must be a nickname (400), free of blacklist words (R12, 403) and
    /// nobody else's in the party (409). Read after the party's row lock (several instances take turns on it), so two
    /// instances never hand out one nickname twice.
    mutating func setNickname(_ raw: String?, deviceId: String, clientAddress: String, party: Party) throws -> Nickname? {
        try transaction { state in
            try state.store.lockParty(id: party.id)
            guard let stored = try state.store.party(id: party.id), stored.isActive else { throw PartyError.partyNotFound }
            guard stored.settings.nicknames else { throw PartyError.nicknamesOff }
            try state.refuseIfBanned(deviceId: deviceId, party: party)
            try state.admitLike(device: deviceId, party: party.id)
            let nickname = try raw.map { raw in
                guard let nickname = Nickname(raw) else { throw PartyError.invalidNickname }
                return nickname
            }
            if let nickname {
                if try state.store.blacklist(partyId: party.id).blocks(nickname) { throw PartyError.nicknameNotAllowed }
                if let holder = try state.store.nicknameHolder(nickname, partyId: party.id), holder != deviceId {
                    throw PartyError.nicknameTaken
                }
            }
            try state.admitGuest(deviceId, party: party, clientAddress: clientAddress)
            try state.store.setNickname(nickname, deviceId: deviceId, partyId: party.id)
            try state.recordActivity(deviceId: deviceId, partyId: party.id)
            // The queue shows it on the guest's songs.
            state.publish(.queueUpdated(.nickname), partyId: party.id)
            return nickname
        }
    }

    /// R36: the party's nicknames by device; none while the party keeps its guests anonymous.
    func nicknames(of party: Party) throws -> [String: String] {
        party.settings.nicknames ? try store.nicknames(partyId: party.id) : [:]
    }
}
