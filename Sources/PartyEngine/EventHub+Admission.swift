import Foundation
import ClientNetwork
import PartyCore
import PartyStore

extension EventHub {
    /// How many streams one exact address (a whole IPv6 /64 is a network), one network, one party and the whole server may
    /// hold (0: no per-address limit). A party keeps `reservedPerParty` of its slots for streams that
    /// proved the host PIN or the monitor token (many addresses must never take the TV's or the host's stream);
    /// streams that wait for an iOS login (no party) share `installations` of their own; one network
    /// (IPv4 /24, IPv6 /64) holds at most `perNetwork`.
    public struct Limits: Sendable {
        public var perAddress: Int
        public var perParty: Int
        public var total: Int
        public var reservedPerParty: Int
        public var installations: Int
        public var perNetwork: Int

        public init(perAddress: Int, perParty: Int, total: Int, reservedPerParty: Int = 16, installations: Int = 256,
                    perNetwork: Int? = nil) {
            self.perAddress = perAddress
            self.perParty = perParty
            self.total = total
            self.reservedPerParty = min(reservedPerParty, perParty / 2)
            self.installations = installations
            self.perNetwork = perNetwork ?? max(1, total / 2)
        }
    }

    /// What a stream proved when it opened.
    public enum Standing: Sendable {
        case guest
        /// The party's host or its registered monitor: may use the party's reserved slots, not held to the
        /// per-address and per-network caps (a TV often shares the host's address).
        case privileged
        /// A stream waiting for an iOS login, with no party.
        case installation
    }

    /// One event on its way to a party's streams.
    struct Delivery {
        let sequence: Int64?
        let frame: [UInt8]
        let audience: Audience?
        /// `party-ended`: the party's streams here end once it is sent (after every event before it, also one held
        /// back past a gap), on the instance that ended the party and on every other.
        let endsParty: Bool
    }
}

extension EventHub.Delivery {
    /// A logged event, as the log (or another instance's ring) gives it.
    init(logged event: LoggedEvent) {
        self.init(sequence: event.sequence, frame: ServerEvent.frame(id: event.sequence, message: event.message),
                  audience: event.audienceSource.map { Audience(source: $0, installationId: event.audienceInstallationId) },
                  endsParty: event.type == EventKind.partyEnded.type)
    }
}

/// How many event streams each exact address, network, party player and the whole server hold, and whether one more
/// fits `EventHub.Limits`. The hub owns it under its lock.
struct StreamAdmission {
    let limits: EventHub.Limits
    private(set) var total = 0
    private var perAddress: [String: Int] = [:]
    private var perNetwork: [String: Int] = [:]
    private var installations = 0
    /// R21: open streams of each party's registered monitor; `deviceActive` follows them.
    private var monitors: [String: Int] = [:]
    /// Streams per party and client address: a web player registered from an address counts its streams.
    private var perPartyAddress: [String: Int] = [:]

    init(limits: EventHub.Limits) { self.limits = limits }

    /// Whether one more stream of this standing fits, the party holding `inParty` already.
    func admits(_ standing: EventHub.Standing, address: String, inParty: Int) -> Bool {
        guard total < limits.total else { return false }
        switch standing {
        case .privileged:
            return inParty < limits.perParty
        case .installation:
            guard installations < limits.installations else { return false }
        case .guest:
            guard inParty < limits.perParty - limits.reservedPerParty else { return false }
        }
        return (limits.perAddress == 0 || perAddress[AddressPrefix.host(of: address), default: 0] < limits.perAddress)
            && perNetwork[AddressPrefix.network(of: address), default: 0] < limits.perNetwork
    }

    mutating func add(partyId: String, address: String, standing: EventHub.Standing, isMonitor: Bool) {
        perAddress[AddressPrefix.host(of: address), default: 0] += 1
        perNetwork[AddressPrefix.network(of: address), default: 0] += 1
        if standing == .installation { installations += 1 }
        perPartyAddress[partyId + "|" + address, default: 0] += 1
        if isMonitor { monitors[partyId, default: 0] += 1 }
        total += 1
    }

    mutating func remove(partyId: String, address: String, standing: EventHub.Standing, isMonitor: Bool) {
        total -= 1
        if isMonitor { Self.decrement(&monitors, partyId) }
        Self.decrement(&perAddress, AddressPrefix.host(of: address))
        Self.decrement(&perNetwork, AddressPrefix.network(of: address))
        if standing == .installation { installations -= 1 }
        Self.decrement(&perPartyAddress, partyId + "|" + address)
    }

    /// Open streams of the party's registered player: its monitor streams, and any stream from `address`.
    func playerStreams(partyId: String, address: String?) -> Int {
        monitors[partyId, default: 0] + (address.map { perPartyAddress[partyId + "|" + $0, default: 0] } ?? 0)
    }

    var partiesWithMonitor: Int { monitors.count }

    private static func decrement(_ counts: inout [String: Int], _ key: String) {
        counts[key, default: 1] -= 1
        if counts[key] == 0 { counts[key] = nil }
    }
}

/// Several instances append to the same party logs: each party's streams here get its logged events in sequence
/// order, each once, without gaps. An event past a gap is held back until the log has been read up to it.
struct LogOrder {
    /// The newest sequence number sent to each party's streams here (absent: the party follows no log here).
    var delivered: [String: Int64] = [:]
    /// Logged events that came past a gap (written by another instance, still to be read from the log).
    private var heldBack: [String: [Int64: EventHub.Delivery]] = [:]

    /// Events read from a party's log (oldest first): those to send now, in order. The log is the truth: events it
    /// no longer keeps are skipped rather than waited for.
    mutating func fromLog(_ deliveries: [EventHub.Delivery], partyId: String) -> [EventHub.Delivery] {
        guard let last = delivered[partyId], let first = deliveries.first(where: { ($0.sequence ?? 0) > last })?.sequence else { return [] }
        if first > last + 1 { delivered[partyId] = first - 1 }
        var ready: [EventHub.Delivery] = []
        for delivery in deliveries where (delivery.sequence ?? 0) > delivered[partyId]! {
            ready += live(delivery, partyId: partyId).ready
        }
        return ready
    }

    /// A logged event as it was published: those to send now, and whether a gap before it has to be read.
    mutating func live(_ delivery: EventHub.Delivery, partyId: String) -> (ready: [EventHub.Delivery], gap: Bool) {
        guard let sequence = delivery.sequence, let last = delivered[partyId], sequence > last else { return ([], false) }
        if sequence > last + 1 {
            heldBack[partyId, default: [:]][sequence] = delivery
            return ([], true)
        }
        var ready = [delivery]
        delivered[partyId] = sequence
        var next = sequence + 1
        while let held = heldBack[partyId]?.removeValue(forKey: next) {
            ready.append(held)
            delivered[partyId] = next
            next += 1
        }
        if let held = heldBack[partyId] {
            let waiting = held.filter { $0.key > next }
            heldBack[partyId] = waiting.isEmpty ? nil : waiting
        }
        return (ready, false)
    }

    /// The party has no streams here any more.
    mutating func forget(partyId: String) {
        delivered[partyId] = nil
        heldBack[partyId] = nil
    }
}
