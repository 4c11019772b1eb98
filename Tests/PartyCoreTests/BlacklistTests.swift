import Foundation
import PartyCore
import Testing

/// R12: a blacklisted word is found however it is disguised, in the title, any artist or the album.
@Suite("Blacklist folding (R12)")
struct BlacklistTests {
    static let blacklist = Blacklist(words: ["Spam"])

    static let disguises: [(name: String, title: String)] = [
        ("full-width letters", "ＳＰＡＭ Radio"),
        ("zero-width space", "Sp\u{200B}am Song"),
        ("zero-width joiner", "S\u{200D}p\u{200D}am"),
        ("soft hyphen", "Sp\u{00AD}am"),
        ("combining marks", "S\u{0301}p\u{0308}a\u{0336}m\u{0323}\u{0489}"),
        ("Cyrillic small letters", "\u{0455}\u{0440}\u{0430}m"),
        ("Cyrillic capitals", "\u{0405}\u{0420}\u{0410}\u{041C}"),
        ("Greek capitals", "S\u{03A1}\u{0391}\u{039C}"),
        ("Greek small letters", "s\u{03C1}\u{03B1}m"),
        ("Cherokee letters", "\u{13DA}\u{13E2}\u{13AA}\u{13B7}"),
        ("spaced letters", "S p a m"),
        ("dotted letters", "s.p.a.m"),
        ("hyphenated letters", "s-p-a-m"),
        ("underscores and tabs", "s_p\ta\u{3000}m"),
        ("mathematical bold", "\u{1D412}\u{1D40F}\u{1D400}\u{1D40C}"),
        ("mathematical double-struck", "\u{1D564}\u{1D561}\u{1D552}\u{1D55E}"),
        ("uppercase", "SPAM"),
        ("mixed case", "sPaM"),
        ("accented letters", "Spàm"),
        ("inside a word", "Superspamhits"),
        ("all at once", "ｓ\u{200B}\u{0440}.\u{0430}\u{0301} \u{1D426}"),
    ]

    @Test(arguments: disguises)
    func aDisguisedTitleIsRefused(_ disguise: (name: String, title: String)) {
        #expect(Self.blacklist.blocks(track(1, name: disguise.title)), "\(disguise.name)")
        #expect(Self.blacklist.blocks(track(2, artist: disguise.title)), "\(disguise.name) as the artist")
    }

    @Test func theAlbumAndEveryArtistCount() {
        let albumOnly = Track(id: "1", uri: "demo:track:1", name: "Harmless", artists: ["Nice Band"], album: "Best of S\u{200B}PAM",
                              imageURL: nil, durationMs: 1)
        #expect(Self.blacklist.blocks(albumOnly))
        let secondArtist = Track(id: "2", uri: "demo:track:2", name: "Harmless", artists: ["Nice Band", "The Ｓｐａｍｓ"], album: "",
                                 imageURL: nil, durationMs: 1)
        #expect(Self.blacklist.blocks(secondArtist))
    }

    /// An override makes screens show stored letters in another order: "\u{202E}maps" reads "spam". The controls go
    /// when the track is made, so every screen shows what the blacklist read.
    @Test func bidirectionalControlsNeverShowAWordTheBlacklistDidNotRead() {
        let overridden = track(1, name: "\u{202E}maps\u{202C} Radio")
        #expect(overridden.name == "maps Radio", "shown as stored, in the order the blacklist reads")
        #expect(!overridden.name.unicodeScalars.contains { (0x2066...0x2069).contains($0.value) || (0x202A...0x202E).contains($0.value) })
        #expect(Self.blacklist.blocks(track(2, name: "S\u{2067}p\u{200F}a\u{2069}m\u{061C}")), "isolates and marks between the letters")
        let artist = Track(id: "3", uri: "demo:track:3", name: "x", artists: ["\u{202D}Spam\u{202C}"], album: "\u{202E}mublA",
                           imageURL: nil, durationMs: 1)
        #expect(artist.artists == ["Spam"] && artist.album == "mublA" && Self.blacklist.blocks(artist))
    }

    @Test func aDisguisedWordMeetsAPlainTitle() {
        #expect(Blacklist(words: ["ＳＰ\u{200B}\u{0410}Μ"]).blocks(track(1, name: "spam")))
        #expect(Blacklist(words: ["s p a m"]).blocks(track(1, name: "Spam")))
    }

    @Test(arguments: ["Sparkling Water", "Samba Pa Ti", "Pam & Sam", "Smooth Operator", "Pasta Milano",
                      "Spa", "Scam", "5pam", "sp4m"])
    func ordinaryTitlesWithoutTheWordPass(_ title: String) {
        #expect(!Self.blacklist.blocks(track(1, name: title)), "\(title)")
    }

    /// R12 keeps substring semantics, and the fold drops spaces: a word also matches inside longer words and across
    /// word gaps. Documented in docs/security.md, pinned here.
    @Test func substringSemanticsStay() {
        let ass = Blacklist(words: ["ass"])
        #expect(ass.blocks(track(1, name: "Glass Animals")), "inside a word, as R12 always did")
        #expect(ass.blocks(track(2, name: "As Sweet As")), "across a space, because spaces fold away")
        #expect(!ass.blocks(track(3, name: "Asia")))
        #expect(!ass.blocks(track(4, name: "Sunset")))
        #expect(Self.blacklist.blocks(track(5, name: "Spa Music")), "across a space")
        #expect(Self.blacklist.blocks(track(6, name: "sparn")), "TR39: \"rn\" looks like \"m\"")
    }

    /// docs/security.md promises these; they are pinned so it does not drift from the code.
    @Test func whatTheReadmeSaysIsCaughtAndWhatNot() {
        #expect(Self.blacklist.blocks(track(1, name: "s_p+a|m")))
        #expect(Blacklist(words: ["class"]).blocks(track(2, name: "CIass")), "capital I written for l, as written")
        #expect(Blacklist(words: ["ill"]).blocks(track(3, name: "ILL")), "caseless")
        #expect(Blacklist(words: ["fool"]).blocks(track(4, name: "f00l")))
        for title in ["5pam", "sp4m", "$pam", "s\u{1F356}p\u{1F356}a\u{1F356}m"] {
            #expect(!Self.blacklist.blocks(track(5, name: title)), "\(title)")
        }
        let split = Track(id: "6", uri: "demo:track:6", name: "am", artists: ["Sp"], album: "", imageURL: nil, durationMs: 1)
        #expect(!Self.blacklist.blocks(split), "a word split across fields")
    }

    @Test func wordsThatFoldToNothingBlockNothing() {
        let blacklist = Blacklist(words: ["", "...", "\u{200B}", " - ", "\u{0301}"])
        #expect(!blacklist.blocks(track(1, name: "Anything")))
        #expect(!blacklist.blocks(track(2, name: "...")))
    }

    @Test func theFoldIsCaseFoldedSkeletonText() {
        #expect(BlacklistFold("Ｓ p\u{200B}ａ-M").text == "sparn")
        #expect(BlacklistFold("STRASSE").text == BlacklistFold("Straße").text)
        #expect(BlacklistFold("f00l").text == "fool", "TR39: 0 looks like O, 1 like l")
        #expect(BlacklistFold("ILL").text == BlacklistFold("ill").text, "caseless: capital I is i, not l")
        #expect(BlacklistFold("\u{039C}\u{0391}\u{039D}").asWritten == BlacklistFold("man").asWritten, "Greek capitals as written")
    }

    @Test func changingTheWordsRefoldsThem() {
        var blacklist = Blacklist(words: ["rock"])
        #expect(!blacklist.blocks(track(1, name: "Spam")))
        blacklist.words.append("spam")
        #expect(blacklist.blocks(track(1, name: "Spam")))
    }

    /// Folding twice changes nothing, for every assigned code point: the generated table settled each value.
    @Test func theFoldIsIdempotent() {
        var unsettled: [String] = []
        for value in UInt32(0)...0x2FFFF {
            guard let scalar = Unicode.Scalar(value), scalar.properties.generalCategory != .unassigned else { continue }
            let once = BlacklistFold(String(scalar))
            let twice = BlacklistFold(once.text)
            if twice.caseless != once.caseless { unsettled.append(String(value, radix: 16)) }
        }
        #expect(unsettled.isEmpty, "\(unsettled.prefix(20))")
    }

    @Test func aNewWordNamesTheWaitingSongsItBlocksButNotThePlayingOne() {
        let entries = [
            QueueEntry(id: 1, track: track(1, name: "Spam Radio"), addedAt: epoch, addedBy: "a"),
            QueueEntry(id: 2, track: track(2, name: "Clean"), addedAt: epoch.addingTimeInterval(1), addedBy: "b"),
            QueueEntry(id: 3, track: track(3, artist: "ＳＰＡＭ"), addedAt: epoch.addingTimeInterval(2), addedBy: "c", autofilled: true),
            QueueEntry(id: 4, track: track(4, name: "More spam"), addedAt: epoch.addingTimeInterval(3), addedBy: "d"),
        ]
        let queue = Queue(entries: entries, currentEntryId: 1)
        #expect(queue.waitingUris(blockedBy: Self.blacklist) == ["demo:track:4", "demo:track:3"], "R9 order: guest songs before auto songs")
        #expect(queue.waitingUris(blockedBy: Blacklist(words: [])) == [])
    }
}
