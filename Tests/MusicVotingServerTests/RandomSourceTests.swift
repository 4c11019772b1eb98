import Foundation
import PartyCore
import Testing
@testable import MusicVotingServer
@testable import PartyEngine

/// R2: PINs come from a cryptographic random source. The service draws them from the source it is given, and the
/// app gives it the system's cryptographic generator unless a test injects another.
@Suite("R2 the PINs' random source")
struct RandomSourceTests {
    /// A fixed, replayable source: the same seed must give the same PINs if they come from it.
    struct Seeded: RandomNumberGenerator {
        var state: UInt64
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

    static func pins(seed: UInt64) throws -> [String] {
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-random-\(UUID().uuidString)").path
        let service = try Application(configuration: configuration, clock: SystemClock(), random: Seeded(state: seed)).service
        return try (0..<3).flatMap { index in
            let party = try service.createParty(provider: "demo", clientAddress: "10.0.\(index).1")
            return [party.guestPin, party.hostPin]
        }
    }

    @Test func theServiceDrawsPinsFromTheInjectedSource() throws {
        let first = try Self.pins(seed: 42)
        #expect(try Self.pins(seed: 42) == first, "the same injected source gives the same PINs: nothing else is mixed in")
        #expect(try Self.pins(seed: 43) != first, "another source gives other PINs")
    }

    @Test func theAppInjectsTheSystemsCryptographicGenerator() throws {
        var configuration = Configuration()
        configuration.dataDirectory = FileManager.default.temporaryDirectory.appendingPathComponent("mv-random-\(UUID().uuidString)").path
        // As main.swift builds it: no random source named.
        let application = try Application(configuration: configuration)
        let source = application.service.randomSourceType
        #expect(source == String(reflecting: SystemRandomNumberGenerator.self), "\(source)")
    }
}
