import Foundation
import PartyCore
import Testing

/// R36: a nickname is 1–24 characters a person sees, in the order written, and one per party in the blacklist's folds.
@Suite("R36 nicknames")
struct NicknameTests {
    @Test func aNicknameIsTrimmedAndBoundedInCharactersAndBytes() {
        #expect(Nickname("  DJ Anna ")?.text == "DJ Anna")
        #expect(Nickname("") == nil && Nickname("   ") == nil && Nickname("...") == nil, "nothing a fold can tell apart")
        #expect(Nickname(String(repeating: "a", count: 24)) != nil && Nickname(String(repeating: "a", count: 25)) == nil)
        #expect(Nickname(String(repeating: "😀", count: 24)) != nil, "24 emoji are 96 bytes")
        #expect(Nickname(String(repeating: "𒀀", count: 25)) == nil)
        #expect(Nickname(String(repeating: "x", count: 10_000)) == nil)
        #expect(Nickname("Zoe\u{301}")?.text == "Zoé", "composed (NFC)")
    }

    @Test func charactersThatHideOrReorderTextAreRefused() {
        for hostile in ["Anna\u{202E}lanoitan", "An\u{200B}na", "Anna\u{2066}x", "An\u{0007}na", "Anna\nBob", "\u{FEFF}Anna",
                        "Anna\u{00AD}", "Anna\u{E000}", "An\u{3000}na", "a\u{300}\u{301}\u{302}\u{303}"] {
            #expect(Nickname(hostile) == nil, "\(hostile.unicodeScalars.map { String($0.value, radix: 16) })")
        }
        #expect(Nickname("❤️ Anna") != nil, "an emoji's presentation selector")
        #expect(Nickname("👩‍🎤 Anna") != nil, "a joiner between emoji")
        #expect(Nickname("A\u{200D}nna") == nil, "a joiner between letters hides nothing useful")
        #expect(Nickname("Amélie") != nil && Nickname("Ærøskøbing") != nil && Nickname("東京の夜") != nil)
    }

    @Test func twoNicknamesAreOneWhenTheirFoldsMeet() {
        let anna = Nickname("DJ Anna")!
        for same in ["dj anna", "DJ-ANNA", "Dj Αnna", "ＤＪ Ａｎｎａ", "DJ Änna"] {
            let other = Nickname(same)!
            #expect(other.caselessKey == anna.caselessKey || other.writtenKey == anna.writtenKey, "\(same)")
        }
        #expect(Nickname("DJ Bob")!.caselessKey != anna.caselessKey)
    }

    @Test func theBlacklistAppliesToNicknames() {
        let blacklist = Blacklist(words: ["spam"])
        #expect(blacklist.blocks(Nickname("Captain S.p.a.m")!))
        #expect(!blacklist.blocks(Nickname("Captain Ham")!))
    }
}
