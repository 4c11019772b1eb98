import Foundation
import HTTPServer
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// Every upstream call is admitted, adds included, and the remote slots are shared fairly.
@Suite("Attack: the provider's quota through adds and the remote slots", .serialized)
struct UpstreamAdmissionAttackTests {
    static func lookups(_ fake: FakeService) -> Int {
        fake.requests.filter { $0.path.hasSuffix("/videos") && $0.query["chart"] == nil }.count
    }

    static func start() throws -> (FakeService, ServerProcess, TestParty) {
        let youtube = try ProviderQuotaAttackTests.fakeYouTube(slowSeconds: 2)
        let server = try ServerProcess(arguments: ["--youtube-key", "k", "--youtube-api-base", youtube.base + "/youtube/v3"])
        return (youtube, server, try TestParty(server, provider: "youtube"))
    }

    @Test func addsOfUnknownUrisCountLikeSearchesBeforeAnyUpstreamCall() throws {
        let (youtube, server, party) = try Self.start()
        defer { server.stop(); youtube.stop() }
        let guest = party.client.from("127.0.8.1")
        let before = Self.lookups(youtube)
        var statuses: [Int: Int] = [:]
        for index in 0..<40 {
            let uri = "youtube:video:" + String(format: "a%010d", index)
            let status = try guest.send("POST", "\(party.base)/track/addToPlaylist", json: ["uri": uri, "deviceId": "guest-\(index)"]).status
            statuses[status, default: 0] += 1
        }
        #expect(Self.lookups(youtube) - before == 15, "one address reaches the upstream 15 times a minute: \(statuses)")
        #expect(statuses[429] == 25)
    }

    @Test func oneRequestNamesAtMostTenUrisAndNoneIsLookedUpBeforeThatIsChecked() throws {
        let (youtube, server, party) = try Self.start()
        defer { server.stop(); youtube.stop() }
        let before = Self.lookups(youtube)
        let uris = (0..<500).map { "youtube:video:" + String(format: "b%010d", $0) }
        let response = try party.client.send("POST", "\(party.base)/track/addToPlaylist", json: uris)
        #expect(response.status == 400 && response.json["code"] as? String == "too_many_uris")
        #expect(Self.lookups(youtube) == before)
    }

    @Test func anUnknownUriIsAskedOnceAMinute() throws {
        let (youtube, server, party) = try Self.start()
        defer { server.stop(); youtube.stop() }
        let before = Self.lookups(youtube)
        for device in 0..<5 {
            let response = try party.client.from("127.0.8.\(device + 10)").send(
                "POST", "\(party.base)/track/addToPlaylist", json: ["uri": "youtube:video:zzzzzzzzzzz", "deviceId": "g\(device)"])
            #expect(response.status == 404)
        }
        #expect(Self.lookups(youtube) - before == 1, "the negative answer is remembered")
        #expect(try party.client.get("\(party.base)/track/zzzzzzzzzzz").status == 404)
        #expect(Self.lookups(youtube) - before == 1, "for the track route too")
    }

    @Test func oneAddressHoldsTwoRemoteSlotsAndABusyRefusalCostsNothing() throws {
        let (youtube, server, party) = try Self.start()
        defer { server.stop(); youtube.stop() }
        let statuses = Mutex<[Int: Int]>([:])
        let group = DispatchGroup()
        let client = party.client, base = party.base
        for index in 0..<8 {
            group.enter()
            Thread {
                let status = (try? client.from("127.0.8.50").get("\(base)/track/search?q=slow\(index)").status) ?? 0
                statuses.withLock { $0[status, default: 0] += 1 }
                group.leave()
            }.start()
        }
        // While the attacker's two slow searches run, another guest still gets a slot.
        var other = 0
        let otherGotIn = eventually(timeout: 15) {
            other = (try? party.client.from("127.0.8.51").get("\(party.base)/track/search?q=other").status) ?? 0
            return other == 200
        }
        group.wait()
        let counts = statuses.withLock { $0 }
        #expect(counts[200] == 2 && counts[503] == 6, "one address holds 2 of 8 slots: \(counts)")
        #expect(otherGotIn, "another guest's search went through (\(other))")
        var admitted = 0
        for index in 0..<20 where try party.client.from("127.0.8.50").get("\(party.base)/track/search?q=after\(index)").status == 200 {
            admitted += 1
        }
        #expect(admitted == 13, "the six refused searches cost nothing: 15 − 2")
    }
}
