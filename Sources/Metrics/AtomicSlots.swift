import Synchronization

/// A fixed number of integer cells, each updated atomically: a like's request adds to a few of them without a lock.
/// `@unchecked Sendable`: every cell is an `Atomic`, and the buffer lives as long as the object.
final class AtomicSlots: @unchecked Sendable {
    let count: Int
    private let cells: UnsafeMutablePointer<Atomic<Int>>

    init(count: Int) {
        self.count = count
        cells = .allocate(capacity: max(count, 1))
        for index in 0..<count { (cells + index).initialize(to: Atomic(0)) }
    }

    deinit {
        cells.deinitialize(count: count)
        cells.deallocate()
    }

    /// Relaxed: a scrape needs each cell's own value, not an order between cells.
    func add(_ amount: Int, at index: Int) {
        (cells + index).pointee.wrappingAdd(amount, ordering: .relaxed)
    }

    func value(at index: Int) -> Int {
        (cells + index).pointee.load(ordering: .relaxed)
    }
}
