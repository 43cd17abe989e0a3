/// Cosine nearest-neighbour search over the words of a `WordVectors`, as fastText's `nn` does it.
///
/// Candidates are unit-length copies of the vectors: each row for `.vec` and `.kwv` (labelled by
/// the row's first key), each word's full subword vector for `.bin` (fastText's
/// `precomputeWordVectors`). Similarity is `dot(query, candidate) / |query|`.
public struct NeighbourIndex: Sendable {
    public struct Neighbour: Sendable, Equatable {
        /// A row of the vectors (for `.bin`: the word id).
        public var row: Int
        public var label: String
        public var similarity: Float
    }

    public let vectors: WordVectors
    /// Unit vectors of the candidates, `candidateRows.count × dimension`.
    private let unit: [Float]
    /// The row each candidate stands for.
    private let candidateRows: [Int]

    /// - Complexity: O(candidates × dimension); for `.bin`, O(words × n-grams × dimension).
    public init(_ vectors: WordVectors) {
        self.vectors = vectors
        let dimension = vectors.dimension
        var rows: [Int] = []
        var unit: [Float] = []
        let count = vectors.subwords == nil ? vectors.rowCount : vectors.keyCount
        unit.reserveCapacity(count * dimension)
        for row in 0 ..< count {
            guard let label = vectors.keys.firstKeyIndex(forRow: row) else { continue }
            let vector: [Float]
            if vectors.subwords != nil {
                vector = vectors.vector(for: vectors.keys.key(at: label)) ?? []
            } else {
                vector = vectors.withRow(row) { Array($0) }
            }
            let norm = Self.norm(vector)
            let scale: Float = norm > 0 ? 1 / norm : 0
            unit.append(contentsOf: vector.map { $0 * scale })
            rows.append(row)
        }
        self.unit = unit
        candidateRows = rows
    }

    static func norm(_ vector: [Float]) -> Float {
        var sum: Float = 0
        for value in vector { sum += value * value }
        return sum.squareRoot()
    }

    /// The `k` most similar candidates to `query`, best first, skipping rows in `excluding`.
    /// - Complexity: O(candidates × dimension + candidates × log k).
    public func nearest(to query: [Float], k: Int, excluding: Set<Int> = []) -> [Neighbour] {
        let dimension = vectors.dimension
        precondition(query.count == dimension, "query has \(query.count) values, expected \(dimension)")
        guard k > 0 else { return [] }
        var queryNorm = Self.norm(query)
        if abs(queryNorm) < 1e-8 { queryNorm = 1 }
        var best: [(similarity: Float, candidate: Int)] = []
        best.reserveCapacity(k + 1)
        unit.withUnsafeBufferPointer { unit in
            query.withUnsafeBufferPointer { query in
                for candidate in 0 ..< candidateRows.count where !excluding.contains(candidateRows[candidate]) {
                    let base = candidate * dimension
                    var dot: Float = 0
                    for index in 0 ..< dimension { dot += unit[base + index] * query[index] }
                    let similarity = dot / queryNorm
                    if best.count == k, let last = best.last, similarity <= last.similarity { continue }
                    let position = best.firstIndex { $0.similarity < similarity } ?? best.count
                    best.insert((similarity, candidate), at: position)
                    if best.count > k { best.removeLast() }
                }
            }
        }
        return best.map { entry in
            let row = candidateRows[entry.candidate]
            return Neighbour(row: row, label: vectors.label(forRow: row) ?? "", similarity: entry.similarity)
        }
    }

    /// Neighbours of a word: its vector (`vector(for:)`), excluding the word's own row.
    /// Nil when the vectors have no vector for the word.
    public func nearest(toWord word: String, k: Int) -> [Neighbour]? {
        guard let query = vectors.vector(for: word) else { return nil }
        let own = vectors.row(forKey: word).map { Set([$0]) } ?? []
        return nearest(to: query, k: k, excluding: own)
    }
}
