import Foundation
import Testing
@testable import MusicVotingKit

@Suite("PIN entry, QR code, covers, strings")
@MainActor
struct SmallModelsTests {
    @Test func fiveDigitsSubmitByThemselvesAndAWrongPinShakesAndClears() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        var joined: String?
        let entry = PinEntry { pin in joined = try await server.client().join(pin: pin).id }
        let wrong = created.pin == "00000" ? "11111" : "00000"
        await entry.type("0a")
        #expect(entry.pin == "0" && joined == nil)
        entry.deleteBackward()
        await entry.type(wrong)
        #expect(entry.shakes == 1 && entry.digits.isEmpty && joined == nil && entry.error == "Party nicht gefunden.")
        for digit in created.pin { await entry.type(String(digit)) }
        #expect(joined == created.id && entry.shakes == 1)
    }

    @Test func theQRCodeLoadsAsBytesOrSaysWhyNot() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let loader = QRCodeLoader(client: server.client(), partyId: created.id)
        #expect(loader.state == .loading)
        await loader.load()
        guard case .loaded(let png) = loader.state else { Issue.record("no QR code: \(loader.state)"); return }
        #expect(png.count > 100)
        let missing = QRCodeLoader(client: server.client(), partyId: "nope")
        await missing.load()
        #expect(missing.state == .failed("Party nicht gefunden."))
    }

    @Test func aCoverIsFetchedOnceForTwoRequestsAndAMissingOneIsThePlaceholder() async throws {
        let server = try KitServer()
        defer { server.stop() }
        let created = try await server.client().createParty(provider: "demo")
        let track = try #require(try await server.client().search(created.id, query: "Neon").first)
        let cache = CoverCache()
        async let first = cache.image(for: track.coverURL)
        async let second = cache.image(for: track.coverURL)
        let (a, b) = await (first, second)
        #expect(a != nil && a == b && a?.starts(with: [0x89, 0x50, 0x4E, 0x47]) == true)
        #expect(await cache.downloads == 1)
        #expect(await cache.image(for: nil) == nil)
        #expect(await cache.image(for: URL(string: "http://127.0.0.1:\(server.port)/demo/cover/9999.png")) == nil)
    }

    @Test func theDeviceLanguagePicksTheTableAndAMissingTextFallsBackToGerman() {
        #expect(KitStrings(preferredLanguages: ["en-GB", "de"])[.searchFailed] == "Search failed. Please try again.")
        #expect(KitStrings(preferredLanguages: ["fr-FR"])[.searchFailed] == "Suche fehlgeschlagen. Bitte erneut versuchen.")
        let partial = KitStrings(preferredLanguages: ["en"], tables: ["de": [.skip: "Überspringen"], "en": [:]])
        #expect(partial[.skip] == "Überspringen", "German, never the raw key")
        for key in KitStrings.Key.allCases {
            #expect(!KitStrings(preferredLanguages: ["de"])[key].isEmpty && !KitStrings(preferredLanguages: ["en"])[key].isEmpty, "\(key)")
        }
    }
}
