import Foundation
import Testing
import HTTPServer
import PartyEngine
import TestSupport
@testable import MusicVotingServer

/// `musicvoting nginx-config` prints what docs/scaling.md puts in front of the instances.
@Suite struct NginxConfigurationTests {
    @Test func partyHashOverEveryUpstreamWithUnbufferedStreamsAndTheNextUpstreamOnError() throws {
        let text = try NginxConfiguration(arguments: ["--upstream", "10.0.0.2:8080", "--upstream", "10.0.0.3:8080",
                                                      "--listen", "10.0.0.1:80"]).text
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        #expect(lines.contains("hash $musicvoting_party consistent;"))
        #expect(lines.filter { $0.hasPrefix("server 10.0.0.") } == ["server 10.0.0.2:8080 max_fails=1 fail_timeout=2s;",
                                                                     "server 10.0.0.3:8080 max_fails=1 fail_timeout=2s;"])
        for directive in ["listen 10.0.0.1:80;", "proxy_pass http://musicvoting;", "proxy_buffering off;", "proxy_read_timeout 1h;",
                          "proxy_next_upstream error timeout;", "proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;",
                          "proxy_http_version 1.1;", "client_header_timeout 10s;"] {
            #expect(lines.contains(directive), "\(directive)")
        }
        #expect(!text.contains("$pid"), "nginx's own variable, not the party's")
        #expect(text.filter { $0 == "{" }.count == text.filter { $0 == "}" }.count)
    }

    /// A draining instance refuses new connections, so nginx's connection to it is refused before the request is
    /// sent and the next instance gets it (the next upstream on `error`). Nothing that reached an instance is sent
    /// again: not a POST (`non_idempotent`), not the instances' own 502 and 503.
    @Test func aRefusedConnectionGoesToTheNextInstanceAndNothingThatReachedOneIsSentAgain() throws {
        let text = try NginxConfiguration(arguments: ["--upstream", "10.0.0.2:8080", "--upstream", "10.0.0.3:8080"]).text
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
        #expect(lines.filter { $0.hasPrefix("proxy_next_upstream") } == ["proxy_next_upstream error timeout;"])
        #expect(lines.contains("proxy_connect_timeout 2s;"))
        #expect(!lines.contains { $0.hasPrefix("proxy_next_upstream_tries") }, "\(lines)")
        #expect(lines.filter { $0.hasPrefix("server 10.") }.allSatisfy { $0.hasSuffix(" max_fails=1 fail_timeout=2s;") })
    }

    /// Upstream connections are kept: `keepalive` after the balancing line (nginx's keepalive wraps the balancer
    /// named before it; before `hash`, it would keep nothing), HTTP/1.1 without `Connection: close`, and an idle
    /// timeout well under the instances' own, so nginx, never an instance, ends an idle kept connection. A draining
    /// instance serves kept connections for that timeout and a second more (`Application.drain`).
    @Test func upstreamConnectionsAreKeptAfterTheBalancingLineAndNginxEndsAnIdleOneFirst() throws {
        for arguments in [["--upstream", "10.0.0.2:8080"], ["--upstream", "10.0.0.2:8080", "--round-robin"]] {
            let text = try NginxConfiguration(arguments: arguments).text
            let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.hasPrefix("#") }
            let upstream = try #require(lines.firstIndex(of: "upstream musicvoting {"))
            let keepalive = try #require(lines.firstIndex(of: "keepalive 32;"))
            let end = try #require(lines[upstream...].firstIndex(of: "}"))
            #expect(upstream < keepalive && keepalive < end, "in the upstream block")
            if let hash = lines.firstIndex(of: "hash $musicvoting_party consistent;") { #expect(hash < keepalive, "after the balancing line") }
            #expect(lines.contains("keepalive_timeout \(Server.proxyIdleTimeout)s;") && lines.contains("keepalive_requests 1000;"))
            #expect(lines.contains("proxy_http_version 1.1;") && lines.contains("proxy_set_header Connection \"\";"))
        }
        #expect(Server.proxyIdleTimeout == 4 && Server.idleTimeout == 15 && Server.Configuration().idleTimeout == Server.idleTimeout)
        #expect(Server.proxyIdleTimeout * 2 < Server.idleTimeout, "nginx gives up on an idle connection long before an instance")
        #expect(Server.proxyIdleTimeout + 1 < Configuration().drainSeconds, "a drain outlasts nginx's idle timeout")
    }

    /// What the instances limit themselves when guests reach them directly, nginx limits when they come through it.
    @Test func connectionsPerAddressAndBodyTimeoutAsTheInstancesHaveThem() throws {
        let text = try NginxConfiguration(arguments: ["--upstream", "10.0.0.2:8080"]).text
        let lines = text.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let zone = try #require(lines.firstIndex(of: "limit_conn_zone $binary_remote_addr zone=musicvoting_addresses:10m;"))
        let server = try #require(lines.firstIndex(of: "server {"))
        let limit = try #require(lines.firstIndex(of: "limit_conn musicvoting_addresses \(PartyLimits().connectionsPerAddress);"))
        let location = try #require(lines.firstIndex(of: "location / {"))
        #expect(zone < server && server < limit && limit < location, "the zone in nginx's http block, the limit in the server")
        #expect(PartyLimits().connectionsPerAddress == 64)
        #expect(lines.contains("client_header_timeout \(Int(Server.headDeadline))s;") && lines.contains("client_body_timeout 30s;"))
        #expect(Server.bodyDeadline == 30)

        let other = try NginxConfiguration(arguments: ["--upstream", "10.0.0.2:8080", "--max-connections-per-address", "200"]).text
        #expect(other.contains("    limit_conn musicvoting_addresses 200;\n"))
        let none = try NginxConfiguration(arguments: ["--upstream", "10.0.0.2:8080", "--max-connections-per-address", "0"]).text
        #expect(!none.contains("limit_conn"), "0 is no limit, as on the instances")
    }

    /// The key is the party id as the instances read it: a whole path segment, else the event stream's partyId when it
    /// is plain hex named once in a plain query. Any other spelling hashes as empty, so it cannot pick an instance.
    @Test func theHashKeyIsThePartyIdAsTheInstancesReadIt() throws {
        let printed = try NginxConfiguration(arguments: ["--upstream", "127.0.0.1:9", "--listen", "127.0.0.1:\(try freeLoopbackPort())"]).text
        let nginx = try NginxKeyProbe(printed: printed)
        defer { nginx.stop() }
        let id = "0123456789abcdef0123456789abcdef"
        let other = "fedcba9876543210fedcba9876543210"
        let cases: [(String, String)] = [
            ("/api/party/\(id)", id), ("/api/party/\(id)/track/queue", id), ("/api/party/\(id)?partyId=\(other)", id),
            ("/api/party/%30123456789abcdef0123456789abcdef/track/queue", id),
            ("/api/party/\(id)zz/track/queue", ""), ("/api/party/join/12345?partyId=\(id)", ""),
            ("/api/spotify/events?partyId=\(id)", id), ("/api/spotify/events?source=ios&partyId=\(id)&installationId=a-1", id),
            ("/api/spotify/events?partyId=%30123456789abcdef0123456789abcdef", ""),
            ("/api/spotify/events?partyId=0123456789ABCDEF0123456789ABCDEF", ""),
            ("/api/spotify/events?partyId=\(id)&partyId=\(other)", ""), ("/api/spotify/events?partyid=\(other)&partyId=\(id)", ""),
            ("/api/spotify/events?party%49d=\(other)&partyId=\(id)", ""), ("/api/spotify/events?partyId=\(id)%00", ""),
        ]
        for (target, key) in cases {
            #expect(try nginx.key(for: target) == key, "\(target)")
        }
    }

    @Test func roundRobinHasNoHashAndListensOn80ByDefault() throws {
        let configuration = try NginxConfiguration(arguments: ["--upstream", "a.example:8080", "--round-robin"])
        #expect(!configuration.text.contains("hash "))
        #expect(configuration.text.contains("    listen 80;\n"))
        #expect(configuration.upstreams == ["a.example:8080"])
    }

    @Test func wrongArgumentsAreAUsageError() {
        for arguments in [[], ["--upstream"], ["--upstream", "10.0.0.2"], ["--upstream", "10.0.0.2:80; evil"],
                          ["--upstream", "10.0.0.2:8080", "--bogus"], ["--listen", "80"],
                          ["--upstream", "10.0.0.2:8080", "--max-connections-per-address", "-1"],
                          ["--upstream", "10.0.0.2:8080", "--max-connections-per-address", "many"]] {
            #expect(throws: NginxConfiguration.UsageError.self, "\(arguments)") { try NginxConfiguration(arguments: arguments) }
        }
    }
}
