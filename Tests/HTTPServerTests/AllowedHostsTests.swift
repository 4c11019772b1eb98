import Testing
@testable import HTTPServer

/// DNS-rebinding guard: the configured names, IP literals and localhost pass, in any letter case and with
/// any port; every other name is refused.
@Suite("Allowed host names")
struct AllowedHostsTests {
    let hosts = AllowedHosts(names: ["Party.Example"])

    @Test func namesIPLiteralsAndLocalhostPassInAnyCaseWithAnyPort() {
        for header in ["party.example", "PARTY.example:8080", "127.0.0.1", "127.0.0.1:43210", "[::1]:8080", "[fe80::1]",
                       "localhost:3000", "tv.localhost", "LOCALHOST", nil, ""] {
            #expect(hosts.allows(header), "\(header ?? "no Host")")
        }
    }

    @Test func otherNamesAreRefused() {
        for header in ["evil.example", "party.example.evil.example:80", "127.0.0.1.evil.example", "[::1].evil", "localhost.evil.example",
                       String(repeating: "a", count: 256)] {
            #expect(!hosts.allows(header), "\(header)")
        }
    }
}
