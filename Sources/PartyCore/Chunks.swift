extension Collection {
    /// The elements in consecutive pieces of at most `size` each, in order (the last may be shorter): the rows of
    /// one multi-row statement at a time.
    public func chunks(of size: Int) -> [SubSequence] {
        precondition(size > 0, "a chunk holds at least one element")
        var pieces: [SubSequence] = []
        var start = startIndex
        while start != endIndex {
            let end = index(start, offsetBy: size, limitedBy: endIndex) ?? endIndex
            pieces.append(self[start..<end])
            start = end
        }
        return pieces
    }
}
