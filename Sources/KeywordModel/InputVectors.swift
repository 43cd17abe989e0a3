// The frozen input word vectors as the model sees them: one contiguous Float32 table.

/// Frozen word vectors, `rowCount` rows of `dimension` floats, row-major in one buffer.
///
/// Row ids are those of the vector file (for the default model, chiVe rows). Token sequences refer to rows by
/// id; a negative id means "no vector" (out of vocabulary) and selects the encoder's learned OOV state.
public struct InputVectors: Sendable {
    public let dimension: Int
    public let rowCount: Int
    public let storage: [Float]

    /// - Precondition: `storage.count == rowCount * dimension`.
    public init(dimension: Int, storage: [Float]) {
        precondition(dimension > 0 && storage.count % dimension == 0, "storage is not a whole number of rows")
        self.dimension = dimension
        self.rowCount = storage.count / dimension
        self.storage = storage
    }

    /// Random unit-scale vectors, for tests and synthetic experiments.
    public static func random(rows: Int, dimension: Int, seed: UInt64) -> InputVectors {
        var generator = SeededGenerator(seed: seed)
        let scale = 1 / Double(dimension).squareRoot()
        let values = (0..<rows * dimension).map { _ in Float(generator.normal() * scale) }
        return InputVectors(dimension: dimension, storage: values)
    }

    /// Whether `row` names a stored row.
    @inlinable public func contains(_ row: Int32) -> Bool { row >= 0 && Int(row) < rowCount }
}

/// A token sequence as the model consumes it: vector row ids (−1 for a token without a vector).
public typealias RowSequence = [Int32]
