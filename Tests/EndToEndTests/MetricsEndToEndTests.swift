import Foundation
import PartyTestSupport
import Synchronization
import TestSupport
import Testing

/// `/metrics` in Prometheus' text format: lint-clean under Debian's promtool, labels from fixed sets only, never
/// shown to guests, and read by a real Prometheus.
@Suite("Metrics")
struct MetricsEndToEndTests {
    /// Likes on the party's first songs on `threads` threads until `stop` is set, each from a new device, so no
    /// device's like budget (R11) ends the load; the server must be started without a ration of new guests.
    static func likeStorm(_ party: TestParty, threads: Int = 4, until stop: StopFlag) -> DispatchGroup {
        let group = DispatchGroup()
        let (client, base) = (party.client, party.base)
        for thread in 0..<threads {
            onOwnThread(group) {
                var number = 0
                while !stop.isSet {
                    number += 1
                    _ = try? client.send("POST", "\(base)/track/vote", json: ["uri": "demo:track:\(1 + number % 3)", "deviceId": "storm-\(thread)-\(number)", "liked": true])
                }
            }
        }
        return group
    }

    static let unrationed = ["--max-new-guests-per-network", "0"]

    @Test func aScrapeUnderLoadPassesPromtoolAndNamesNothingFromARequest() throws {
        let server = try ServerProcess(arguments: Self.unrationed)
        defer { server.stop() }
        let party = try TestParty(server)
        for song in 1...3 { #expect(try party.add(song, device: "adder-\(song)").status == 200) }
        let stream = try party.events()
        defer { stream.close() }
        // What a request may carry that must never become a label: a path, a party id (real and made up), a PIN.
        let weirdPath = "/zz-metrics-probe-\(UUID().uuidString.prefix(8))"
        let madeUpParty = "metricsprobe\(UUID().uuidString.prefix(8).lowercased())"
        _ = try server.client.get(weirdPath)
        _ = try server.client.get("/api/party/\(madeUpParty)/track/queue")
        _ = try server.client.send("POST", "/api/party/\(madeUpParty)/track/vote", json: ["uri": "demo:track:1", "deviceId": "x"])
        _ = try server.client.get("/api/party/join/\(party.pin)")
        let stop = StopFlag()
        let storm = Self.likeStorm(party, until: stop)
        defer { stop.set(); storm.wait() }
        #expect(eventually { (try? server.client.get("/metrics").text.contains("musicvoting_likes_total 0")) == false })
        let scrape = try server.client.get("/metrics")
        stop.set()
        storm.wait()
        #expect(scrape.status == 200)
        #expect(scrape.header("content-type")?.hasPrefix("text/plain; version=0.0.4") == true)

        let file = server.dataDirectory + ".metrics"
        try scrape.text.write(toFile: file, atomically: true, encoding: .utf8)
        defer { try? FileManager.default.removeItem(atPath: file) }
        let lint = try runToExit("/bin/sh", ["-c", "/usr/bin/promtool check metrics < \(file)"])
        #expect(lint.status == 0 && lint.output.isEmpty, "promtool: \(lint.output)")

        for text in [weirdPath, madeUpParty, party.id, party.pin, party.hostPin, "storm-", "127.0.0.1", "demo:track"] {
            #expect(!scrape.text.contains(text), "\(text) is in the scrape")
        }
        for line in scrape.text.split(separator: "\n") where !line.hasPrefix("#") {
            #expect(line.hasPrefix("musicvoting_") || line.hasPrefix("process_"), "\(line)")
        }
        for family in ["musicvoting_http_requests_total{route=\"/api/party/{id}/track/vote\",status_class=\"2xx\"}",
                       "musicvoting_http_request_duration_seconds_bucket{route=\"/api/party/{id}/track/vote\",le=\"+Inf\"}",
                       "musicvoting_http_requests_total{route=\"(no route)\",status_class=\"4xx\"} 1",
                       "musicvoting_event_streams 1", "musicvoting_group_commit_batch_size_count", "musicvoting_events_published_total",
                       "musicvoting_event_stream_written_bytes_total", "process_resident_memory_bytes", "process_open_fds",
                       "musicvoting_refusals_total{reason=\"rate_limited\"}", "musicvoting_stalls_total{reason=\"no-monitor\"}",
                       "musicvoting_provider_calls_total{provider=\"spotify\",outcome=\"ok\"} 0"] {
            #expect(scrape.text.contains(family), "\(family) missing")
        }
    }

    @Test func guestsNeverReadTheMetrics() throws {
        let server = try ServerProcess(arguments: ["--trusted-proxy", "127.0.0.1"])
        defer { server.stop() }
        #expect(try server.client.get("/metrics").status == 200)
        // A guest behind the trusted proxy, and one behind a proxy nobody declared: 404 as for any unknown path.
        #expect(try server.client.get("/metrics", headers: ["X-Forwarded-For": "192.168.1.20"]).status == 404)
        #expect(try server.client.from("127.0.0.2").get("/metrics", headers: ["X-Forwarded-For": "10.0.0.7"]).status == 404)
        #expect(try server.client.get("/metrics", headers: ["Forwarded": "for=10.0.0.7"]).status == 404)
    }

    @Test func anOperatorsListenerServesTheMetricsInstead() throws {
        let port = try freeLoopbackPort()
        let server = try ServerProcess(arguments: ["--metrics", "127.0.0.1:\(port)"])
        defer { server.stop() }
        #expect(try server.client.get("/metrics").status == 404, "the guests' listener no longer answers it")
        let scrape = try HTTPClient(port: port).get("/metrics")
        #expect(scrape.status == 200 && scrape.text.contains("# TYPE musicvoting_likes_total counter"))
        #expect(try HTTPClient(port: port).get("/api/party/join/12345").status == 404, "the metrics listener serves nothing else")
    }

    @Test func prometheusScrapesTheServerAndAnswersLikesPerSecond() throws {
        let server = try ServerProcess(arguments: Self.unrationed)
        defer { server.stop() }
        let party = try TestParty(server)
        for song in 1...3 { #expect(try party.add(song, device: "adder-\(song)").status == 200) }
        let prometheus = try PrometheusProcess(scraping: "127.0.0.1:\(server.port)")
        defer { prometheus.stop() }
        let stop = StopFlag()
        let storm = Self.likeStorm(party, until: stop)
        defer { stop.set(); storm.wait() }
        var likesPerSecond: Double?
        let answered = eventually(timeout: 40) {
            likesPerSecond = try? prometheus.query("sum(rate(musicvoting_likes_total[5s]))")
            return (likesPerSecond ?? 0) > 0
        }
        #expect(answered, "no likes per second from Prometheus: \(String(describing: likesPerSecond)); scrape: \((try? server.client.get("/metrics").text.split(separator: "\n").filter { $0.contains("likes_total") || $0.contains("refusals_total") || $0.contains("vote\",status") }) ?? [])")
    }
}

/// Set once to end a load the test started on other threads.
final class StopFlag: Sendable {
    private let flag = Atomic(false)
    var isSet: Bool { flag.load(ordering: .relaxed) }
    func set() { flag.store(true, ordering: .relaxed) }
}

/// Runs `work` on a thread of its own, inside `group`. Not a dispatch queue: libdispatch on Linux runs as many
/// blocks at once as there are cores, and with other tests' threads blocked on sockets a load's blocks never ran.
func onOwnThread(_ group: DispatchGroup, _ work: @escaping @Sendable () -> Void) {
    group.enter()
    Thread {
        work()
        group.leave()
    }.start()
}
