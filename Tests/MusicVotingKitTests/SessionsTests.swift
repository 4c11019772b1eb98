import Foundation
import Testing
@testable import MusicVotingKit

@Suite("Sessions")
struct SessionsTests {
    @Test func theDeviceIdIsMadeOnceAndSessionsSurviveARestartUntilLeft() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("mv-kit-restore-\(UUID().uuidString)")
        let first = Sessions(storage: FileSessionStorage(folder: folder))
        let device = first.deviceId
        #expect(UUID(uuidString: device) != nil && first.deviceId == device)
        first.save(GuestSession(partyId: "p1", pin: "12345"))
        first.save(HostSession(partyId: "p1", hostPin: "54321", guestPin: "12345"))
        // The app restarts: a new store on the same folder.
        let again = Sessions(storage: FileSessionStorage(folder: folder))
        #expect(again.deviceId == device)
        #expect(again.guest == GuestSession(partyId: "p1", pin: "12345"))
        #expect(again.host == HostSession(partyId: "p1", hostPin: "54321", guestPin: "12345"))
        again.leaveGuest()
        again.leaveHost()
        let third = Sessions(storage: FileSessionStorage(folder: folder))
        #expect(third.guest == nil && third.host == nil && third.deviceId == device)
    }

    @Test func userDefaultsKeepsThemToo() throws {
        let suite = "mv-kit-\(UUID().uuidString)"
        let defaults = try #require(UserDefaults(suiteName: suite))
        defer { defaults.removePersistentDomain(forName: suite) }
        let sessions = Sessions(storage: UserDefaultsSessionStorage(defaults: defaults))
        sessions.save(GuestSession(partyId: "p", pin: "11111"))
        #expect(Sessions(storage: UserDefaultsSessionStorage(defaults: defaults)).guest?.pin == "11111")
    }
}
