import Foundation
import Testing
@testable import MusicVotingServer

/// Issue 26: `musicvoting nginx-config` prints what README "Run on several machines" puts in front of the instances.
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
                          "proxy_http_version 1.1;", "\"\" $arg_partyId;", "client_header_timeout 10s;"] {
            #expect(lines.contains(directive), "\(directive)")
        }
        #expect(!text.contains("$pid"), "nginx's own variable, not the party's")
        #expect(text.filter { $0 == "{" }.count == text.filter { $0 == "}" }.count)
    }

    @Test func roundRobinHasNoHashAndListensOn80ByDefault() throws {
        let configuration = try NginxConfiguration(arguments: ["--upstream", "a.example:8080", "--round-robin"])
        #expect(!configuration.text.contains("hash "))
        #expect(configuration.text.contains("    listen 80;\n"))
        #expect(configuration.upstreams == ["a.example:8080"])
    }

    @Test func wrongArgumentsAreAUsageError() {
        for arguments in [[], ["--upstream"], ["--upstream", "10.0.0.2"], ["--upstream", "10.0.0.2:80; evil"],
                          ["--upstream", "10.0.0.2:8080", "--bogus"], ["--listen", "80"]] {
            #expect(throws: NginxConfiguration.UsageError.self, "\(arguments)") { try NginxConfiguration(arguments: arguments) }
        }
    }
}
