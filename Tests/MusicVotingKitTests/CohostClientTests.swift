import Foundation
import Testing
import TestSupport
@testable import MusicVotingKit

/// R34 in the kit and the CLI: the host makes, lists and revokes co-host links; a client made from a link acts as the
/// co-host, and the server refuses what only the host may do.
@Suite("Co-hosts in the kit and the CLI")
struct CohostClientTests {
    @Test func aLinkNamesItsServerPartyAndTokenAndNothingElseIsOne() throws {
        let party = String(repeating: "a", count: 32), token = String(repeating: "0", count: 31) + "f"
        let invitation = try #require(CohostInvitation(link: " https://party.example:8443/mv/cohost#party=\(party)&cohost=\(token)\n"))
        #expect(invitation.server.absoluteString == "https://party.example:8443/mv" && invitation.partyId == party && invitation.token == token)
        for link in ["https://party.example/host#party=\(party)&cohost=\(token)", "https://party.example/cohost#party=\(party)",
                     "https://party.example/cohost#party=\(party)&cohost=\(token.uppercased())", "ftp://party.example/cohost#party=\(party)&cohost=\(token)",
                     "https://party.example/cohost#party=\(party)&cohost=\(token)%0D%0A", "not a link"] {
            #expect(CohostInvitation(link: link) == nil, "\(link)")
        }
    }

    @Test func theHostMakesListsAndRevokesLinksAndACohostActsWithOne() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let host = server.client(hostPin: created.hostPin)
        let made = try await host.createCohost(created.id)
        #expect(made.qr?.hasPrefix("data:image/png;base64,") == true)
        let invitation = try #require(CohostInvitation(link: made.url))
        #expect(invitation.partyId == created.id && invitation.token == made.token)
        let cohost = MusicVotingClient.cohost(invitation)

        let details = try await cohost.party(created.id)
        #expect(details.role == "cohost" && details.cohostId == made.id && details.hostPin == nil)
        _ = try await host.registerMonitor(created.id, deviceId: "tv")
        try await server.client().add(created.id, uri: "demo:track:1", deviceId: "phone")
        #expect(try await cohost.start(created.id).track?.uri == "demo:track:1")
        #expect(try await cohost.pause(created.id).isPlaying == false)
        #expect(try await cohost.addBlacklistWord(created.id, word: "Polka") == ["Polka"])
        let refused = APIError.server(status: 403, message: "Das darf nur der Host.", code: "host_only", retryAfter: nil)
        await #expect(throws: refused) { try await cohost.endParty(created.id) }
        await #expect(throws: refused) { try await cohost.cohosts(created.id) }
        await #expect(throws: refused) { try await cohost.updateSettings(created.id, PartySettings(fairQueue: true)) }

        let list = try await host.cohosts(created.id)
        #expect(list.limit == 5 && list.cohosts.map(\.id) == [made.id] && list.cohosts.first?.joinedAt != nil)
        try await host.revokeCohost(created.id, cohost: made.id)
        await #expect(throws: APIError.server(status: 403, message: "Dieser Co-Host-Link wurde zurückgezogen.", code: "cohost_revoked", retryAfter: nil)) {
            try await cohost.resume(created.id)
        }
        await #expect(throws: APIError.self) { try await host.revokeCohost(created.id, cohost: "../bans") }
        _ = try await host.createCohost(created.id)
        _ = try await host.createCohost(created.id)
        #expect(try await host.revokeAllCohosts(created.id) == 2)
        #expect(try await host.cohosts(created.id).cohosts.isEmpty)
    }

    @Test func theCLIMakesListsAndRevokesLinksAndSkipsAsACohost() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let home = FileManager.default.temporaryDirectory.appendingPathComponent("mv-cli-\(UUID().uuidString)").path
        func cli(_ arguments: [String]) throws -> (Int32, String) { try server.cli(arguments, home: home) }
        let (made, line) = try cli(["cohosts", "new", "--host-pin", created.hostPin])
        let parts = line.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
        #expect(made == 0 && parts.count == 2, "\(line)")
        let (id, link) = (parts[0], parts[1].trimmingCharacters(in: .whitespacesAndNewlines))
        #expect(link.contains("/cohost#party=\(created.id)&cohost="))
        _ = try await server.client(hostPin: created.hostPin).registerMonitor(created.id, deviceId: "tv")
        try await server.client().add(created.id, uri: "demo:track:1", deviceId: "phone")
        try await server.client().add(created.id, uri: "demo:track:2", deviceId: "phone")
        let skipped = try cli(["skip", "--cohost", link])
        #expect(skipped.0 == 0 && skipped.1.hasPrefix("Läuft gerade: "), "\(skipped)")
        let listed = try cli(["cohosts", "--host-pin", created.hostPin]).1
        #expect(listed.hasPrefix("1  \(id)  joined "), "\(listed)")
        #expect(try cli(["cohosts", "--cohost", link]) == (1, "musicvoting-cli: Das darf nur der Host.\n"))
        #expect(try cli(["cohosts", "revoke", id, "--host-pin", created.hostPin]) == (0, "revoked: \(id)\n"))
        #expect(try cli(["skip", "--cohost", link]) == (1, "musicvoting-cli: Dieser Co-Host-Link wurde zurückgezogen.\n"))
        #expect(try cli(["skip", "--cohost", "https://elsewhere.example/join/12345"]) == (1, "musicvoting-cli: --cohost takes the co-host link the host passed on\n"))
        #expect(try cli(["cohosts", "revoke", "--all", "--host-pin", created.hostPin]) == (0, "revoked: 0\n"))
    }
}
