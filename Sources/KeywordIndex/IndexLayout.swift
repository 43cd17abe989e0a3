// Where each keyword of an index lives: slots in chunks that a changed index shares with the one it came from.
import KeywordModel

/// The keywords of an index by slot, and the list order over the slots.
///
/// A keyword occupies one slot for as long as it is in the list. Slots come in chunks of `chunkSlots`; each
/// chunk holds the blocked keyword matrices for its slots (see `FloatKernels.scoreBlocks`) and serves either
/// keywords of at most one token or longer ones, since for the former the kernel needs one product, not two.
/// Removing a keyword frees its slot for the next keyword of its kind; a chunk is added only when its kind
/// has no free slot. A copy shares all chunks with the original until one is written, so a change of a few
/// keywords copies a few chunks plus `position` (one Int32 per keyword).
struct IndexLayout: Sendable {
    /// Slots per chunk: 16 blocks of 8 keywords.
    static let chunkSlots = 128
    let hidden: Int
    /// Keyword index → slot.
    private(set) var position: [Int32] = []
    /// Small chunks: copying one copies (retains) every entry's strings and arrays.
    private(set) var entries = ChunkedArray<KeywordEntry?>(filler: nil, chunkShift: 7)
    private(set) var matcher: LexicalMatcher
    private var unitMeans: [ChunkBox<[Float]>?] = []
    private var directions: [ChunkBox<[Float]>?] = []
    private var single: [Bool] = []
    /// Free slots of single-token chunks and of the others.
    private var freeSingle: [Int32] = []
    private var freeMultiple: [Int32] = []

    init(hidden: Int, varieties: [VarietyEntry]) {
        self.hidden = hidden
        matcher = LexicalMatcher(capacity: 0, varieties: varieties)
    }

    var chunkCount: Int { single.count }
    var capacity: Int { single.count * IndexLayout.chunkSlots }

    func isSingle(chunk c: Int) -> Bool { single[c] }

    /// Puts `entry` at keyword index `k` (later keywords move up by one), with its encodings.
    mutating func insert(_ entry: KeywordEntry, at k: Int, vectors: (unitMean: [Float], direction: [Float])) {
        let isSingle = entry.text.rows.count <= 1
        if (isSingle ? freeSingle : freeMultiple).isEmpty { addChunk(single: isSingle) }
        let slot = isSingle ? freeSingle.removeLast() : freeMultiple.removeLast()
        position.insert(slot, at: k)
        entries[Int(slot)] = entry
        write(Int(slot), vectors)
        matcher.insert(entry.text, id: slot)
    }

    /// Takes out the keyword at index `k` (later keywords move down by one) and frees its slot.
    mutating func remove(at k: Int) {
        let slot = position.remove(at: k)
        guard let entry = entries[Int(slot)] else { preconditionFailure("keyword without an entry") }
        matcher.remove(entry.text, id: slot)
        entries[Int(slot)] = nil
        if single[Int(slot) / IndexLayout.chunkSlots] { freeSingle.append(slot) } else { freeMultiple.append(slot) }
    }

    private mutating func addChunk(single isSingle: Bool) {
        let first = capacity
        single.append(isSingle)
        let size = hidden * IndexLayout.chunkSlots
        unitMeans.append(ChunkBox([Float](repeating: 0, count: size)))
        directions.append(ChunkBox([Float](repeating: 0, count: size)))
        entries.grow(to: capacity)
        matcher.reserve(capacity)
        // Highest first, so slots are handed out in ascending order.
        let slots = (first..<capacity).reversed().map { Int32($0) }
        if isSingle { freeSingle.append(contentsOf: slots) } else { freeMultiple.append(contentsOf: slots) }
    }

    /// Where component `q` of the keyword in slot `s` sits inside its chunk's matrices (blocks of 8 keywords,
    /// component-major inside a block, so one SIMD8 load reads 8 keywords' component).
    @inline(__always) private func offset(_ s: Int, _ q: Int) -> Int {
        let p = s % IndexLayout.chunkSlots
        return ((p / FloatKernels.lanes) * hidden + q) * FloatKernels.lanes + p % FloatKernels.lanes
    }

    private mutating func write(_ slot: Int, _ vectors: (unitMean: [Float], direction: [Float])) {
        let c = slot / IndexLayout.chunkSlots
        for (matrix, values) in [(0, vectors.unitMean), (1, vectors.direction)] {
            guard let box = matrix == 0 ? unitMeans[c] : directions[c] else { preconditionFailure("chunk missing") }
            var floats = box.value
            if matrix == 0 { unitMeans[c] = nil } else { directions[c] = nil }
            _ = consume box
            for q in 0..<hidden { floats[offset(slot, q)] = values[q] }
            if matrix == 0 { unitMeans[c] = ChunkBox(floats) } else { directions[c] = ChunkBox(floats) }
        }
    }

    /// The encodings of the keyword in `slot`.
    func vectors(_ slot: Int) -> (unitMean: [Float], direction: [Float]) {
        let c = slot / IndexLayout.chunkSlots
        let means = unitMeans[c].unsafelyUnwrapped.value, directions = directions[c].unsafelyUnwrapped.value
        return ((0..<hidden).map { means[offset(slot, $0)] }, (0..<hidden).map { directions[offset(slot, $0)] })
    }

    /// Calls `body` with chunk `c`'s blocked attention-query and direction matrices.
    @inline(__always)
    func withChunk<R>(_ c: Int, _ body: (UnsafeBufferPointer<Float>, UnsafeBufferPointer<Float>) -> R) -> R {
        let means = unitMeans[c].unsafelyUnwrapped, directions = directions[c].unsafelyUnwrapped
        return means.value.withUnsafeBufferPointer { m in directions.value.withUnsafeBufferPointer { d in body(m, d) } }
    }
}

/// The keywords of an index in list order.
public struct KeywordEntries: RandomAccessCollection, Sendable, Equatable {
    let layout: IndexLayout
    public var startIndex: Int { 0 }
    public var endIndex: Int { layout.position.count }
    public subscript(k: Int) -> KeywordEntry { layout.entries[Int(layout.position[k])].unsafelyUnwrapped }

    public static func == (a: KeywordEntries, b: KeywordEntries) -> Bool { a.elementsEqual(b) }
}
