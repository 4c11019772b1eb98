import PartyCore
import Testing

/// The rows of one multi-row statement at a time.
@Suite("Chunks")
struct ChunksTests {
    @Test func piecesKeepTheOrderAndOnlyTheLastIsShorter() {
        #expect(Array(1...7).chunks(of: 3).map(Array.init) == [[1, 2, 3], [4, 5, 6], [7]])
        #expect(Array(1...6).chunks(of: 3).map(Array.init) == [[1, 2, 3], [4, 5, 6]])
        #expect([Int]().chunks(of: 3).isEmpty)
        #expect(Array(1...2).chunks(of: 64).map(Array.init) == [[1, 2]])
        #expect(Array(1...5).dropFirst(2).chunks(of: 2).map(Array.init) == [[3, 4], [5]], "a slice keeps its own indices")
    }
}
