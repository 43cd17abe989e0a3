/// One contiguous, row-major block of `Float`s: the storage behind every `WordVectors`.
///
/// This is the only type in the module that owns a raw pointer. It is filled once while a file
/// is loaded (through `withMutableStorage`) and is read-only after it has been handed to a
/// `WordVectors`; that is why it can honestly be `Sendable`.
final class FloatMatrix: @unchecked Sendable {
    let rows: Int
    let columns: Int
    private let storage: UnsafeMutableBufferPointer<Float>

    /// Allocates `rows × columns` zeros.
    init(rows: Int, columns: Int) {
        precondition(rows >= 0 && columns > 0, "matrix shape must be non-negative")
        self.rows = rows
        self.columns = columns
        storage = UnsafeMutableBufferPointer<Float>.allocate(capacity: max(rows * columns, 1))
        storage.initialize(repeating: 0)
    }

    deinit {
        storage.deallocate()
    }

    /// A view of one row.
    @inline(__always)
    func withRow<R>(_ row: Int, _ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        precondition(row >= 0 && row < rows, "row \(row) out of range 0..<\(rows)")
        let start = row * columns
        return try body(UnsafeBufferPointer(rebasing: storage[start ..< start + columns]))
    }

    /// A view of all rows, row-major.
    func withAll<R>(_ body: (UnsafeBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeBufferPointer(rebasing: storage[0 ..< rows * columns]))
    }

    /// Write access, for loaders only, before the matrix is shared.
    func withMutableStorage<R>(_ body: (UnsafeMutableBufferPointer<Float>) throws -> R) rethrows -> R {
        try body(UnsafeMutableBufferPointer(rebasing: storage[0 ..< rows * columns]))
    }

    /// Adds row `row` to `accumulator` element by element (fastText's `addRowToVector`).
    @inline(__always)
    func addRow(_ row: Int, to accumulator: inout [Float]) {
        withRow(row) { values in
            for index in 0 ..< columns { accumulator[index] += values[index] }
        }
    }
}
