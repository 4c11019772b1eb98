import Foundation
import PartyCore
import ClientNetwork

extension PartyState {
    /// Who a guest is: a device id is the client's own string, so it becomes one of the party's guests only when the
    /// party admits it, the first time it is used there, under the ration of new guests (`GuestLimits`). Every
    /// per-guest rule (R9b, R11, R17, R17a, R18a, R30) runs after this, so it counts admitted guests only. A new
    /// identity from the address a banned guest came from is refused too (R30).
    mutating func admitGuest(_ deviceId: String, party: Party, clientAddress: String) throws {
        if live[party.id]?.guests.contains(deviceId) == true { return }
        let writers = self.writers
        if openTransactions > 0, writers.batchesWithoutSavepoints, !guards.limits.countsNewGuests,
           try !writers.isBanned(address: AddressPrefix.host(of: clientAddress), partyId: party.id, state: &self) {
            // Several writers, inside a write, no ration of new guests and no ban of the address: nothing refuses the
            // device, so its row is written at once (the party's row first), one statement for a known and a new one.
            try store.lockParty(id: party.id)
            if try writers.admitGuest(deviceId: deviceId, partyId: party.id, address: AddressPrefix.host(of: clientAddress), state: &self) { effects.admittedGuests.append((party.id, deviceId)) }
            return live[party.id, default: LiveParty()].noteGuest(deviceId)
        }
        if try !store.isGuest(deviceId: deviceId, partyId: party.id) {
            // Several instances: the party's row first, as every other write of the party takes it first (a like
            // locks it before it admits; an add that counted the ration before it would wait on the like that
            // waits on it).
            if openTransactions > 0 { try store.lockParty(id: party.id) }
            let address = AddressPrefix.host(of: clientAddress)
            if try store.isBanned(address: address, partyId: party.id) { throw PartyError.banned }
            try guards.limits.admitNewGuest(party: party.id, address: clientAddress, at: now)
            // The guests are no part of what the read cache holds; a rollback of the write takes the admission back.
            try keepingReads { try $0.store.admitGuest(deviceId: deviceId, partyId: party.id, address: address, at: $0.now) }
            effects.admittedGuests.append((party.id, deviceId))
        }
        live[party.id, default: LiveParty()].noteGuest(deviceId)
    }
}
