// Where each keyword of an index lives: slots in chunks that a changed index shares with the one it came from.
import KeywordModel
import Platform

/// The keywords of an index by slot, and the list order over the slots.
///
/// A keyword occupies one slot for as long as it is in the list. Slots come in chunks of `chunkSlots`; each
/// chunk holds the blocked keyword matrices for its slots (see `FloatKernels.scoreBlocks`) and serves either
/// keywords of at most one token or longer ones, since for the former the kernel needs one product, not two.
/// Removing a keyword frees its slot for the next keyword of its kind; a chunk is added only when its kind
/// has no free slot. A copy shares all chunks with the original until one is written, so a change of a few
/// keywords copies a few chunks plus `position` (one Int32 per keyword).
struct IndexLayout: Sendable {
    /// Slots per chunk: 32 blocks of 8 keywords. Smaller chunks make a change copy less but cost the scoring
    /// pass a kernel call each (at 128, 50k keywords scored about 35 % slower than in one matrix; at 256 the
    /// difference was within the noise of `kwsuggest bench`).
    static let chunkSlots = 256
    let hidden: Int
    /// Keyword index → slot.
    private(set) var position: [Int32] = []
    /// Small chunks: copying one copies (retains) every entry's strings and arrays.
    private(set) var entries = ChunkedArray<KeywordEntry?>(filler: nil, chunkShift: 7)
    private(set) var matcher: LexicalMatcher
    private var unitMeans: [MatrixChunk] = []
    private var directions: [MatrixChunk] = []
    /// The chunks' storage addresses, for the kernels without a retain per chunk (valid while the chunks above
    /// hold it; addresses, as pointers are not Sendable).
    private(set) var meanAddresses: [UInt] = []
    private(set) var directionAddresses: [UInt] = []
    private var single: [Bool] = []
    /// List indices of the keywords of at most one token, ascending.
    private var singlePositions: [Int32] = []
    /// Slots of single-token keywords placed in chunks of longer ones (see `settleTail`).
    private var tailSlots: [Int32] = []
    /// Free slots of single-token chunks and of the others.
    private var freeSingle: [Int32] = []
    private var freeMultiple: [Int32] = []
    /// Storage for the chunks a build adds, one run per matrix (see `reserve`); nil once the build ends.
    private var reserved: (means: MatrixSlab, directions: MatrixSlab, chunks: Int, used: Int)?

    init(hidden: Int, varieties: [VarietyEntry]) {
        self.hidden = hidden
        matcher = LexicalMatcher(capacity: 0, varieties: varieties)
    }

    var chunkCount: Int { single.count }
    var capacity: Int { single.count * IndexLayout.chunkSlots }

    func isSingle(chunk c: Int) -> Bool { single[c] }

    /// Places the next `chunks` chunks added to this new layout side by side, in one allocation per matrix.
    ///
    /// The scoring pass streams the direction matrix of every chunk; chunks allocated one by one lie between
    /// each other's unit-mean chunks and other heap blocks, and at 100k keywords that pass ran about 20 % slower
    /// than over one contiguous matrix. Only a layout that no copy has seen may reserve: two copies handing out
    /// the same place would share a chunk's memory. `endReservation` must run before the layout is shared.
    mutating func reserve(chunks: Int) {
        precondition(chunkCount == 0 && reserved == nil, "reserve only on a new layout")
        guard chunks > 0 else { return }
        let floats = chunks * chunkFloats
        reserved = (MatrixSlab(count: floats), MatrixSlab(count: floats), chunks, 0)
    }

    /// Ends the reservation: chunks added from now on, and copies of shared chunks, get an allocation each.
    /// A place in the reservation stays allocated until every chunk placed there is gone, so an index changed
    /// chunk by chunk keeps at most its build's matrices once more (plus the few places a build over-estimated).
    mutating func endReservation() { reserved = nil }

    /// Whether chunks may still be placed in a reservation (the layout must not be shared then).
    var isReserving: Bool { reserved != nil }

    /// Puts `entry` at keyword index `k` (later keywords move up by one), with its encodings.
    mutating func insert(_ entry: KeywordEntry, at k: Int, vectors: (unitMean: [Float], direction: [Float]),
                         tail: Bool = false) {
        let oneToken = entry.text.rows.count <= 1
        let slot = takeSlot(single: oneToken && !tail)
        position.insert(slot, at: k)
        let at = singlePositions.lowerBound(of: Int32(k))
        for i in at..<singlePositions.count { singlePositions[i] += 1 }
        if oneToken { singlePositions.insert(Int32(k), at: at) }
        if tail { tailSlots.append(slot) }
        fill(slot, with: entry, vectors: vectors)
    }

    /// Takes out the keyword at index `k` (later keywords move down by one) and frees its slot.
    mutating func remove(at k: Int) {
        let slot = position.remove(at: k)
        let at = singlePositions.lowerBound(of: Int32(k))
        if at < singlePositions.count && singlePositions[at] == Int32(k) { singlePositions.remove(at: at) }
        for i in at..<singlePositions.count { singlePositions[i] -= 1 }
        tailSlots.removeAll { $0 == slot }
        guard let entry = entries[Int(slot)] else { preconditionFailure("keyword without an entry") }
        matcher.remove(entry.text, id: slot)
        release(slot)
    }

    /// Takes out the keywords at `removals` (indices into this list, distinct), then puts in `insertions` (each at
    /// its index in the resulting list, distinct and ascending) with their encodings: what `remove(at:)` from the
    /// highest index down and then `insert` from the lowest up make, slot for slot, but with `position` and the
    /// single-token positions moved once for the whole change instead of once per keyword.
    /// - Complexity: O(changes · matcher work + K).
    mutating func apply(removals: [Int],
                        insertions: [(index: Int, entry: KeywordEntry, vectors: (unitMean: [Float], direction: [Float]))]) {
        let removing = removals.sorted()
        if !removing.isEmpty {
            var leaving = Set<Int32>(), texts: [(text: LexicalText, id: Int32)] = []
            texts.reserveCapacity(removing.count)
            for k in removing.reversed() {
                let slot = position[k]
                leaving.insert(slot)
                guard let entry = entries[Int(slot)] else { preconditionFailure("keyword without an entry") }
                texts.append((entry.text, slot))
                release(slot)
            }
            matcher.remove(texts)
            tailSlots.removeAll { leaving.contains($0) }
            var kept: [Int32] = [], keptSingles: [Int32] = []
            kept.reserveCapacity(position.count - removing.count)
            keptSingles.reserveCapacity(singlePositions.count)
            var r = 0, s = 0
            for k in position.indices {
                if r < removing.count && removing[r] == k {
                    r += 1
                    if s < singlePositions.count && singlePositions[s] == Int32(k) { s += 1 }
                    continue
                }
                if s < singlePositions.count && singlePositions[s] == Int32(k) {
                    keptSingles.append(Int32(k - r))
                    s += 1
                }
                kept.append(position[k])
            }
            position = kept
            singlePositions = keptSingles
        }
        guard !insertions.isEmpty else { return }
        var slots: [Int32] = []
        slots.reserveCapacity(insertions.count)
        for (_, entry, vectors) in insertions {
            let slot = takeSlot(single: entry.text.rows.count <= 1)
            slots.append(slot)
            fill(slot, with: entry, vectors: vectors)
        }
        var merged: [Int32] = [], mergedSingles: [Int32] = []
        merged.reserveCapacity(position.count + insertions.count)
        mergedSingles.reserveCapacity(singlePositions.count + insertions.count)
        var old = 0, s = 0
        func takeOld() {
            if s < singlePositions.count && singlePositions[s] == Int32(old) {
                mergedSingles.append(Int32(merged.count))
                s += 1
            }
            merged.append(position[old])
            old += 1
        }
        for (i, insertion) in insertions.enumerated() {
            precondition(insertion.index >= merged.count && insertion.index <= merged.count + position.count - old,
                         "insertions out of order or past the list's end")
            while merged.count < insertion.index { takeOld() }
            if insertion.entry.text.rows.count <= 1 { mergedSingles.append(Int32(merged.count)) }
            merged.append(slots[i])
        }
        while old < position.count { takeOld() }
        position = merged
        singlePositions = mergedSingles
    }

    /// Puts the last (singles mod 8) single-token keywords, in list order, in chunks of longer keywords and every
    /// other single-token keyword in a single-token chunk, moving the few that are on the wrong side.
    ///
    /// This is where a contiguous index puts them: single-token keywords first, in list order, and the last
    /// block, which they share with longer keywords, scored by the two-product path. The two paths differ in the
    /// last bit, so placing them alike keeps every score equal to that layout's (and the shipped calibrator, fitted
    /// on it, reproducible).
    /// - Complexity: O(single-token keywords after the earliest previous tail keyword), usually a few, plus
    ///   re-inserting at most 14 keywords.
    mutating func settleTail() {
        let wanted = Array(singlePositions.suffix(singlePositions.count % FloatKernels.lanes)).map(Int.init)
        var moves: [(k: Int, tail: Bool)] = []
        // The keywords placed as the tail before this change are single-token keywords, found from the end of
        // `singlePositions` (usually among its last few).
        var remaining = Set(tailSlots), i = singlePositions.count - 1
        while !remaining.isEmpty && i >= 0 {
            let k = Int(singlePositions[i])
            if remaining.remove(position[k]) != nil && !wanted.contains(k) { moves.append((k, false)) }
            i -= 1
        }
        for k in wanted where single[Int(position[k]) / IndexLayout.chunkSlots] { moves.append((k, true)) }
        for (k, tail) in moves {
            let slot = Int(position[k])
            guard let entry = entries[slot] else { preconditionFailure("keyword without an entry") }
            let encoded = vectors(slot)
            remove(at: k)
            insert(entry, at: k, vectors: encoded, tail: tail)
        }
    }

    /// A free slot in a chunk of single-token keywords or of longer ones, adding a chunk when none is free.
    private mutating func takeSlot(single isSingle: Bool) -> Int32 {
        if (isSingle ? freeSingle : freeMultiple).isEmpty { addChunk(single: isSingle) }
        return isSingle ? freeSingle.removeLast() : freeMultiple.removeLast()
    }

    /// Puts `entry` and its encodings in `slot` and its text in the matcher (the list order is the caller's).
    private mutating func fill(_ slot: Int32, with entry: KeywordEntry, vectors: (unitMean: [Float], direction: [Float])) {
        entries[Int(slot)] = entry
        write(Int(slot), vectors)
        matcher.insert(entry.text, id: slot)
    }

    /// Empties `slot` and returns it to its chunk kind's free list (the caller takes its text out of the matcher).
    private mutating func release(_ slot: Int32) {
        entries[Int(slot)] = nil
        if single[Int(slot) / IndexLayout.chunkSlots] { freeSingle.append(slot) } else { freeMultiple.append(slot) }
    }

    private mutating func addChunk(single isSingle: Bool) {
        let first = capacity
        single.append(isSingle)
        let size = chunkFloats
        if let run = reserved, run.used < run.chunks {
            unitMeans.append(MatrixChunk(count: size, in: run.means, at: run.used * size))
            directions.append(MatrixChunk(count: size, in: run.directions, at: run.used * size))
            reserved?.used += 1
        } else {
            unitMeans.append(MatrixChunk(count: size))
            directions.append(MatrixChunk(count: size))
        }
        meanAddresses.append(unitMeans[unitMeans.count - 1].address)
        directionAddresses.append(directions[directions.count - 1].address)
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
        if !isKnownUniquelyReferenced(&unitMeans[c]) {
            unitMeans[c] = MatrixChunk(copying: unitMeans[c])
            meanAddresses[c] = unitMeans[c].address
        }
        if !isKnownUniquelyReferenced(&directions[c]) {
            directions[c] = MatrixChunk(copying: directions[c])
            directionAddresses[c] = directions[c].address
        }
        for q in 0..<hidden {
            unitMeans[c].set(offset(slot, q), vectors.unitMean[q])
            directions[c].set(offset(slot, q), vectors.direction[q])
        }
    }

    /// The encodings of the keyword in `slot`.
    func vectors(_ slot: Int) -> (unitMean: [Float], direction: [Float]) {
        let c = slot / IndexLayout.chunkSlots
        let means = unitMeans[c].elements, directions = directions[c].elements
        return ((0..<hidden).map { means[offset(slot, $0)] }, (0..<hidden).map { directions[offset(slot, $0)] })
    }

    /// Floats in each chunk of each matrix.
    var chunkFloats: Int { hidden * IndexLayout.chunkSlots }
}

/// The keywords of an index in list order.
public struct KeywordEntries: RandomAccessCollection, Sendable, Equatable {
    let layout: IndexLayout
    public var startIndex: Int { 0 }
    public var endIndex: Int { layout.position.count }
    public subscript(k: Int) -> KeywordEntry { layout.entries[Int(layout.position[k])].unsafelyUnwrapped }

    public static func == (a: KeywordEntries, b: KeywordEntries) -> Bool { a.elementsEqual(b) }
}

/// Zeroed Float32s aligned to 64 bytes, so the kernels' 32-byte loads never straddle a cache line: the memory
/// of one matrix chunk, or of several side by side (see `IndexLayout.reserve`). Freed when the last chunk in
/// it goes; only `MatrixChunk` reads or writes it.
final class MatrixSlab: @unchecked Sendable {
    let count: Int
    let base: UnsafeMutablePointer<Float>

    init(count: Int) {
        precondition(count > 0, "empty matrix slab")
        self.count = count
        base = UnsafeMutableRawPointer.allocate(byteCount: count * MemoryLayout<Float>.stride, alignment: 64)
            .bindMemory(to: Float.self, capacity: count)
        base.initialize(repeating: 0, count: count)
    }

    deinit {
        base.deinitialize(count: count)
        base.deallocate()
    }
}

/// One chunk of a keyword matrix: `count` floats of a slab (no other chunk uses them). Written only while
/// uniquely referenced (before the layout holding it is shared; a shared chunk is copied first, see
/// `IndexLayout.write`), and read-only from then on, which is what makes sharing it between threads safe.
final class MatrixChunk: @unchecked Sendable {
    let count: Int
    private let slab: MatrixSlab
    private let base: UnsafeMutablePointer<Float>

    /// `count` zeros in a slab of their own.
    init(count: Int) {
        self.count = count
        slab = MatrixSlab(count: count)
        base = slab.base
    }

    /// `count` floats of `slab` from `offset` on, which no other chunk may use (zeros, as the slab is new).
    init(count: Int, in slab: MatrixSlab, at offset: Int) {
        precondition(count > 0 && offset >= 0 && offset + count <= slab.count, "chunk outside its slab")
        assert(offset % 16 == 0, "chunk not 64-byte aligned")
        self.count = count
        self.slab = slab
        base = slab.base + offset
    }

    /// A copy of `other`, in a slab of its own.
    init(copying other: MatrixChunk) {
        count = other.count
        slab = MatrixSlab(count: count)
        base = slab.base
        base.update(from: other.base, count: count)
    }

    var elements: UnsafeBufferPointer<Float> { UnsafeBufferPointer(start: base, count: count) }
    var address: UInt { UInt(bitPattern: base) }

    func set(_ i: Int, _ value: Float) {
        assert(i >= 0 && i < count, "matrix index \(i) outside 0..<\(count)")
        base[i] = value
    }
}
