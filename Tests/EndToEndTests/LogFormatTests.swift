import Foundation
import PartyTestSupport
import TestSupport
import Testing

/// `--log-format json`: one JSON object per line with the fields a collector indexes, never a PIN, token or address;
/// without it, the text lines as before.
@Suite("Log format")
struct LogFormatTests {
    /// A party's life in requests, the secrets among them: the guest PIN in a path, the host PIN as Bearer.
    static func exercise(_ server: ServerProcess) throws -> TestParty {
        let party = try TestParty(server)
        _ = try server.client.get("/api/party/join/\(party.pin)")
        #expect(try party.add(1, device: "guest-a").status == 200)
        #expect(try party.vote(1, device: "guest-b").status == 200)
        _ = try party.host("GET", "/blacklist")
        _ = try? server.client.get("/api/party/\(party.hostPin)\n\"forged\": true/qr")
        _ = try server.client.get("/api/party/\(party.hostPin)/qr")
        _ = try server.client.get("/no/such/path/\(party.pin)")
        return party
    }

    @Test func jsonLinesCarryRouteStatusDurationAndThePartyOnly() throws {
        let server = try ServerProcess(arguments: ["--log-format", "json"])
        let party = try Self.exercise(server)
        server.stop()
        let lines = server.errorOutput().split(separator: "\n").map(String.init)
        #expect(!lines.isEmpty)
        var requests: [[String: Any]] = []
        for line in lines {
            let object = (try? JSONSerialization.jsonObject(with: Data(line.utf8))) as? [String: Any]
            #expect(object != nil, "not one JSON object: \(line)")
            guard let object else { continue }
            #expect(object["time"] is String && object["level"] is String && object["event"] is String, "\(line)")
            if object["event"] as? String == "request" { requests.append(object) }
            for secret in [party.pin, party.hostPin, "127.0.0.1", "127.2", "guest-a", "forged"] {
                #expect(!line.contains(secret), "\(secret) in \(line)")
            }
        }
        let vote = try #require(requests.first { $0["route"] as? String == "/api/party/{id}/track/vote" })
        #expect(vote["status"] as? Int == 200 && vote["method"] as? String == "POST" && vote["durationMs"] is Double)
        #expect(vote["party"] as? String == party.id, "a party route names its party")
        let join = try #require(requests.first { $0["route"] as? String == "/api/party/join/{pin}" })
        #expect(join["party"] == nil, "no party named where the request does not concern one by id")
        #expect(requests.contains { $0["route"] as? String == "(no route)" && $0["status"] as? Int == 404 && $0["party"] == nil })
        #expect(lines.contains { $0.contains("\"event\":\"request\"") && $0.contains("\"route\":\"/api/party/{id}/qr\"") && !$0.contains("\"party\"") },
                "an id that is no well-formed party id is not logged")
    }

    @Test func theDefaultStaysText() throws {
        let server = try ServerProcess()
        _ = try Self.exercise(server)
        server.stop()
        let lines = server.errorOutput().split(separator: "\n")
        #expect(lines.contains { $0.hasPrefix("access POST /api/party/{id}/track/vote 200 ") && $0.hasSuffix("ms") })
        #expect(!lines.contains { $0.hasPrefix("{") })
    }
}
