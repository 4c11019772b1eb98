import Testing
@testable import HTTPServer
import ClientNetwork

@Suite("Connection guard: prefixes and head deadlines")
struct ConnectionGuardTests {
    @Test func prefixesAreIPv4Slash24AndIPv6Slash64AndMappedAddressesAreIPv4() {
        #expect(AddressPrefix("192.168.1.20") == AddressPrefix("192.168.1.250"))
        #expect(AddressPrefix("192.168.1.20") != AddressPrefix("192.168.2.20"))
        #expect(AddressPrefix("::ffff:192.168.1.7") == AddressPrefix("192.168.1.20"))
        #expect(AddressPrefix("::ffff:192.168.1.7")?.description == "192.168.1.0/24")
        #expect(AddressPrefix("2001:db8:1:2:aaaa::1") == AddressPrefix("2001:db8:1:2:ffff:ffff:ffff:ffff"))
        #expect(AddressPrefix("2001:db8:1:2::1") != AddressPrefix("2001:db8:1:3::1"))
        #expect(AddressPrefix("2001:db8:1:2::1")?.description == "2001:db8:1:2::/64")
        #expect(AddressPrefix("::ffff:192.168.1.7") != AddressPrefix("::1"), "IPv4 clients do not share one IPv6 /64")
        #expect(AddressPrefix("party.lan") == nil)
    }

    @Test func aFullPrefixRefusesUntilOneOfItsConnectionsCloses() throws {
        let guarded = ConnectionGuard(perPrefixLimit: 2, headDeadline: 10, idleTimeout: 15)
        let lan = try #require(AddressPrefix("10.0.0.1"))
        let other = try #require(AddressPrefix("10.0.1.1"))
        let first = try #require(OpaquePointer(bitPattern: 0x1000))
        #expect(guarded.admit(lan))
        guarded.opened(first, socket: -1, prefix: lan)
        #expect(guarded.admit(lan))
        #expect(!guarded.admit(lan), "the third connection of a full /24")
        #expect(guarded.admit(other), "another /24 has its own share")
        guarded.closed(first)
        #expect(guarded.count(of: lan) == 1)
        #expect(guarded.admit(lan))
    }
}
