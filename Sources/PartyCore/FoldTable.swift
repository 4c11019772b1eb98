/// What the blacklist fold maps single code points to, generated at build time from ICU (case folding
/// and TR39 confusable skeletons, see `Sources/FoldTableGenerator/main.c`) into `FoldTable+Generated.swift`.
/// Decoded once, on first use; values come without the characters the fold drops.
enum FoldTable {
    struct Entry: Sendable {
        /// Case folded, then its look-alike prototype: the same for every case of a letter.
        let caseless: [Unicode.Scalar]
        /// The look-alike prototype of the scalar as written, then case folded (Greek capital Mu is "M").
        let asWritten: [Unicode.Scalar]
    }

    /// ASCII by index (the common case, no hashing), everything else by code point.
    static let ascii: [Entry?] = (0..<128).map { decoded[UInt32($0)] }
    static let others: [UInt32: Entry] = decoded.filter { $0.key >= 128 }

    static func entry(for scalar: Unicode.Scalar) -> Entry? {
        scalar.value < 128 ? ascii[Int(scalar.value)] : others[scalar.value]
    }

    private static let decoded: [UInt32: Entry] = {
        var table: [UInt32: Entry] = [:]
        table.reserveCapacity(entryCount)
        for line in packed.split(separator: "\n") {
            let halves = line.split(separator: "|", omittingEmptySubsequences: false)
            let caseless = points(halves[0])
            guard let point = caseless.first else { continue }
            let mapped = Array(caseless.dropFirst()).filter { !BlacklistFold.drops($0) }
            let asWritten = halves.count > 1 ? points(halves[1]).filter { !BlacklistFold.drops($0) } : mapped
            table[point.value] = Entry(caseless: mapped, asWritten: asWritten)
        }
        return table
    }()

    private static func points(_ text: Substring) -> [Unicode.Scalar] {
        text.split(separator: " ").compactMap { UInt32($0, radix: 16).flatMap(Unicode.Scalar.init) }
    }
}
