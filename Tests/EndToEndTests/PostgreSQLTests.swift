import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// Slice 1: the real binary on `--database postgres://…` (a server this test process starts), and the
/// start-up sentences for a wrong URL and a server out of reach.
@Suite("PostgreSQL backend")
struct PostgreSQLTests {
    @Test func aPartyRunsAndSurvivesARestartOnPostgreSQL() throws {
        let database = try PostgreSQLCluster.shared().createDatabase()
        let first = try ServerProcess(arguments: ["--database", database])
        let party = try TestParty(first)
        _ = try party.registerMonitor()
        #expect(try party.add(1).status == 200)
        #expect(try party.add(2).status == 200)
        #expect(try party.add(3).status == 200)
        #expect(try party.vote(3, device: "a").status == 200)
        _ = try party.host("PUT", "/blacklist", json: ["word": "Schlager"])
        // The refill (R15) fills up behind the guests' songs: look at the front.
        #expect(try party.queueUris().prefix(3) == ["demo:track:1", "demo:track:3", "demo:track:2"], "R9: the liked song waits first")
        // R14: the played song leaves the queue, the liked one plays.
        #expect(try party.host("POST", "/track/next").status == 200)
        #expect(try party.queueUris().prefix(2) == ["demo:track:3", "demo:track:2"])
        first.stop()
        #expect(!FileManager.default.fileExists(atPath: first.dataDirectory + "/musicvoting.sqlite"), "no SQLite file beside it")

        let second = try ServerProcess(arguments: ["--database", database])
        defer { second.stop() }
        let again = TestPartyHandle(party: party, server: second)
        #expect(try again.client.get("/api/party/join/\(party.pin)").json["id"] as? String == party.id)
        let queue = try again.queue(device: "a")
        #expect(queue.prefix(2).map { $0["uri"] as? String } == ["demo:track:3", "demo:track:2"])
        #expect(queue.first?["isCurrentlyPlaying"] as? Bool == true && queue.first?["likeCount"] as? Int == 1)
        #expect(queue.first?["hasVoted"] as? Bool == true)
        #expect(try again.host("GET", "/blacklist").json["words"] as? [String] == ["Schlager"])
    }

    @Test func aDatabaseURLThatIsNotPostgreSQLSaysSo() throws {
        let result = try StartupTests.run(["--port", "0", "--database", "mysql://mv@127.0.0.1/party"])
        #expect(result.status == 1)
        #expect(result.error == "musicvoting: --database mysql://mv@127.0.0.1/party is not a PostgreSQL URL: give one like postgres://user@host:5432/musicvoting, or leave --database out to use SQLite in --data.\n")
    }

    @Test func aPostgreSQLServerOutOfReachNamesTheURLWithoutItsPassword() throws {
        // Port 1 on loopback: nothing listens there, the connection is refused at once.
        let result = try StartupTests.run(["--port", "0", "--database", "postgres://mv:secret@127.0.0.1:1/party"])
        #expect(result.status == 1)
        let sentence = StartupTests.sentence(result.error)
        #expect(sentence.hasPrefix("musicvoting: Cannot use the PostgreSQL database postgres://mv:***@127.0.0.1:1/party (") && sentence.contains("refused"),
                "\(result.error)")
        #expect(sentence.hasSuffix("or leave --database out to use SQLite in --data.") && !result.error.contains("secret"))
        #expect(result.error.split(separator: "\n").count == 1)
    }
}
