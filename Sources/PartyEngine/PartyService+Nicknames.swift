import Foundation
import PartyCore

/// R36: guests' nicknames.
extension PartyService {
    /// Sets (nil: clears) the guest's nickname; answers it as the party shows it.
    public func setNickname(_ raw: String?, deviceId: String, clientAddress: String = "local", party: Party) throws -> Nickname? {
        try write(partyId: party.id) { try $0.setNickname(raw, deviceId: deviceId, clientAddress: clientAddress, party: party) }
    }

    /// The party's nicknames by device (the adder of an entry or a waiting song); none while nicknames are off.
    public func nicknames(of party: Party) throws -> [String: String] { try withState { try $0.nicknames(of: party) } }
}
