import Foundation
import PartyTestSupport
import Synchronization
import Testing

/// R31 with R24, R24a and R27: nothing that guards a party lives in one process only. Guesses
/// spread over three instances get no more than one instance allows, a TV pairs through any instance, and a Spotify
/// login may end on another instance than it began on.
@Suite("Several instances share their guards", .serialized)
struct SharedGuardsTests {
    /// R27: 30 unknown guest PINs a minute from one address, wherever they arrive.
    @Test func guestPinGuessesSpreadOverThreeInstancesAreRefusedAfterOneInstancesLimit() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let clients = cluster.instances.map { $0.client.from("127.60.0.1") }
        var statuses: [Int] = []
        for guess in 0..<30 { statuses.append(try clients[guess % 3].get("/api/party/join/\(Self.wrongPin(party.pin, guess))").status) }
        #expect(statuses == Array(repeating: 404, count: 30), "\(statuses)")
        for client in clients { #expect(try client.get("/api/party/join/\(Self.wrongPin(party.pin, 99))").status == 429) }
        #expect(try clients[1].get("/api/party/join/\(party.pin)").status == 429, "while refused, even the right PIN reveals nothing")

        // At once: 45 guesses from one address through three instances; exactly 30 are looked up.
        let counts = Mutex<[Int: Int]>([:])
        let (ports, pin) = (cluster.instances.map(\.port), party.pin)
        DispatchQueue.concurrentPerform(iterations: 45) { guess in
            let status = (try? HTTPClient(port: ports[guess % 3]).from("127.61.0.1").get("/api/party/join/\(Self.wrongPin(pin, guess))"))?.status ?? 0
            counts.withLock { $0[status, default: 0] += 1 }
        }
        #expect(counts.withLock { $0 } == [404: 30, 429: 15])
    }

    /// R24/R24a: 10 wrong host PINs a minute per address and party, counted on every instance; then even the right
    /// one answers 429.
    @Test func hostPinFailuresCountAcrossInstances() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let clients = cluster.instances.map { $0.client.from("127.62.0.1") }
        var statuses: [Int] = []
        for guess in 0..<10 {
            statuses.append(try clients[guess % 3].send("GET", "\(party.base)/blacklist", auth: Self.wrongPin(party.hostPin, guess)).status)
        }
        #expect(statuses == Array(repeating: 403, count: 10), "\(statuses)")
        for client in clients { #expect(try client.send("GET", "\(party.base)/blacklist", auth: Self.wrongPin(party.hostPin, 50)).status == 429) }
        #expect(try clients[2].send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 429, "the right PIN reveals nothing")
        #expect(try cluster.instances[1].client.from(party.creatorAddress).send("GET", "\(party.base)/blacklist", auth: party.hostPin).status == 200,
                "the host who proved the PIN on one instance is never held back on another")

        // At once from another address, through three instances: exactly 10 wrong PINs are evaluated.
        let counts = Mutex<[Int: Int]>([:])
        let (ports, base, hostPin) = (cluster.instances.map(\.port), party.base, party.hostPin)
        DispatchQueue.concurrentPerform(iterations: 24) { guess in
            let client = HTTPClient(port: ports[guess % 3]).from("127.63.0.1")
            let status = (try? client.send("GET", base + "/blacklist", auth: Self.wrongPin(hostPin, guess)))?.status ?? 0
            counts.withLock { $0[status, default: 0] += 1 }
        }
        #expect(counts.withLock { $0 } == [403: 10, 429: 14])
    }

    /// R11 and vote stuffing across instances: 10 adds a minute per guest; a network admits 60 new guests a minute,
    /// counted across instances, so made-up ids give a song no more likes than that.
    @Test func addsAndLikesCountAcrossInstances() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let views = cluster.instances.map { party.via($0.port) }
        var adds: [Int] = []
        for number in 1...11 { adds.append(try views[number % 3].add(number, device: "adder").status) }
        #expect(adds == Array(repeating: 200, count: 10) + [429], "\(adds)")
        var likes: [Int] = []
        for index in 0..<61 {
            let client = views[index % 3].client.from("127.67.0.1")
            likes.append(try client.send("POST", party.base + "/track/vote", json: ["uri": "demo:track:1", "deviceId": "liker-\(index)"]).status)
        }
        #expect(likes == Array(repeating: 200, count: 60) + [429], "\(likes)")
        #expect(try party.likeCount(1) == 60)
    }

    /// TV pairing with several instances: the TV opens its pairing on A, the host's phone claims the code on B, and the
    /// TV learns its party and monitor token on C.
    @Test func aTVPairingOpenedOnOneInstanceIsClaimedOnAnother() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        let tv = cluster.instances[0].client.from("127.64.0.1")
        let opened = try tv.send("POST", "/api/tv/pairing")
        #expect(opened.status == 201, "\(opened)")
        let code = try #require(opened.json["code"] as? String)
        let secret = try #require(opened.json["secret"] as? String)
        let onC = cluster.instances[2].client.from("127.64.0.1")
        #expect(try onC.send("GET", "/api/tv/pairing", auth: secret).json["status"] as? String == "waiting")
        let claim = try party.via(cluster.instances[1].port).client.from(party.creatorAddress)
            .send("POST", "\(party.base)/tv/pair", json: ["code": code], auth: party.hostPin)
        #expect(claim.status == 200, "\(claim)")
        let paired = try onC.send("GET", "/api/tv/pairing", auth: secret)
        #expect(paired.json["status"] as? String == "paired" && paired.json["partyId"] as? String == party.id, "\(paired)")
        let token = try #require(paired.json["monitorToken"] as? String)
        #expect(try party.reportProgress(token: token).status == 204, "the token the TV got works on A")
        #expect(try tv.send("GET", "/api/tv/pairing", auth: secret).status == 404, "a pairing is handed out once, on any instance")
    }

    /// A wrong code claimed on any instance counts in one R24 budget (scope `tv-pairing`): 10 per address.
    @Test func wrongPairingCodesCountAcrossInstances() throws {
        let cluster = try TestCluster()
        let party = try cluster.party()
        var statuses: [Int] = []
        for guess in 0..<11 {
            let client = cluster.instances[guess % 3].client.from(party.creatorAddress)
            statuses.append(try client.send("POST", "\(party.base)/tv/pair", json: ["code": String(format: "%06d", 100_000 + guess)],
                                            auth: party.hostPin).status)
        }
        #expect(Array(statuses.prefix(10)) == Array(repeating: 404, count: 10) && statuses.last == 429, "\(statuses)")
    }

    /// A Spotify login begun on A ends on B (Spotify sends the browser to whichever instance nginx picks): the state
    /// and its PKCE verifier are in the database, the signing key is the same everywhere, and the state is used once.
    @Test func aSpotifyCallbackOnAnotherInstanceCompletesTheLogin() throws {
        let accounts = try FakeSpotifyAccounts()
        defer { accounts.stop() }
        let cluster = try TestCluster(arguments: ["--spotify-client-id", "cluster-test", "--spotify-accounts-base", accounts.base,
                                                  "--spotify-api-base", accounts.base + "/v1"])
        let created = try cluster.instances[0].client.from("127.65.0.1").send("POST", "/api/party", json: ["provider": "spotify"])
        #expect(created.status == 201, "\(created)")
        let partyId = try #require(created.json["id"] as? String)
        let hostPin = try #require(created.json["hostPin"] as? String)
        let stream = try SSEClient(port: cluster.instances[0].port, path: "/api/party/\(partyId)/events")
        defer { stream.close() }

        let login = try cluster.instances[0].client.get("/api/party/\(partyId)/spotify/login")
        #expect(login.status == 303, "\(login)")
        let location = try #require(login.header("location").flatMap(URLComponents.init(string:)))
        let state = try #require(location.queryItems?.first { $0.name == "state" }?.value)
        let encoded = state.addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? state
        let callback = try cluster.instances[1].client.get("/api/spotify/callback?code=good-code&state=\(encoded)")
        #expect(callback.status == 303 && callback.header("location") == "/host?spotify=connected", "\(callback)")
        _ = try stream.waitFor("login-success")
        #expect(try cluster.instances[2].client.get("/api/spotify/callback?code=good-code&state=\(encoded)").status == 400,
                "a state is used once, on any instance")
        let status = try cluster.instances[2].client.send("GET", "/api/party/\(partyId)/spotify/status", auth: hostPin)
        #expect(status.json["loggedIn"] as? Bool == true, "the tokens B saved are read on C: \(status)")
    }

    /// A guess that differs from `pin` (same length, digits only).
    static func wrongPin(_ pin: String, _ guess: Int) -> String {
        var candidate = guess
        while true {
            let digits = String(candidate % Int(pow(10, Double(pin.count))))
            let text = String(repeating: "0", count: max(0, pin.count - digits.count)) + digits
            if text != pin { return text }
            candidate += 7919
        }
    }
}
