// The keyword matrix: keyword encodings computed once, and all keywords scored for a name in one pass.
import Dispatch
import KeywordModel
#if canImport(Glibc)
import Glibc
#endif

/// One keyword as the index needs it: its display string and its prepared text (folded + token rows).
public struct KeywordEntry: Sendable, Equatable {
    public var keyword: String
    public var text: LexicalText
    public init(keyword: String, text: LexicalText) {
        self.keyword = keyword
        self.text = text
    }
}

/// What a keyword's encoding depends on: its rows and its sub-word pieces.
struct EncodedInput: Hashable {
    var rows: [Int32]
    var subwords: SubwordPieces
    init(_ text: LexicalText) {
        rows = text.rows
        subwords = text.subwords
    }
}

/// Scores every keyword for a product name: cosine of the attention-pooled name states with the keyword's
/// mean state, plus learned exact-match evidence, minus an optional hubness penalty.
///
/// Keyword-side encodings (`unitMeans`: mean of unit word states, the attention query; `directions`: unit
/// mean state) live in K × hidden Float32 matrices (see `IndexLayout`). Per request, the name is encoded once;
/// then for each keyword k, with `U` the unit name states, `H` the states and `G = H Hᵀ`:
/// `α = softmax(τ · U m_k)`, `score = (α · H d_k) / √(αᵀ G α)`. Work space comes from a pool, so a warm
/// index allocates nothing per request apart from the returned array.
///
/// An index is immutable. `applying(removals:insertions:)` makes the index of a changed list, sharing every
/// part the change does not touch with this one, at a cost that depends on the change and not on the list.
public final class KeywordIndex: Sendable {
    public let model: InferenceModel
    public let options: ScoringOptions
    let vectors: InputVectors
    let layout: IndexLayout
    /// Slot → keyword index (−1 for a free slot).
    let order: [Int32]
    /// Per chunk, its blocks up to the one of its last occupied slot: the scoring pass scores no block after it.
    let chunkBlocks: [Int32]
    /// Per keyword index; empty without hubness.
    let hubPenalty: [Float]
    private let pool: ScratchPool

    /// The keywords, in list order.
    public var entries: KeywordEntries { KeywordEntries(layout: layout) }
    public var count: Int { layout.position.count }
    public var keywords: [String] { entries.map(\.keyword) }
    var matcher: LexicalMatcher { layout.matcher }
    var position: [Int32] { layout.position }

    /// Encodes every keyword. Keywords already encoded in `reusing` (same model) are copied, not re-encoded.
    /// - Complexity: O(K · m · hidden · (input + 3 · hidden)) for new keywords; O(K²·hidden) more with hubness on.
    public convenience init(model: InferenceModel, vectors: InputVectors, entries: [KeywordEntry],
                            varieties: [VarietyEntry] = [], options: ScoringOptions = ScoringOptions(),
                            reusing previous: KeywordIndex? = nil) {
        var layout = IndexLayout(hidden: model.hidden, varieties: varieties)
        // Every chunk of a build side by side: a chunk per 256 single-token keywords and per 256 others, rounded
        // up, and one more for the single-token keywords `settleTail` moves among the others.
        let singles = entries.count { $0.text.rows.count <= 1 }, slots = IndexLayout.chunkSlots
        layout.reserve(chunks: (singles + slots - 1) / slots + (entries.count - singles + slots - 1) / slots + 1)
        var previousSlot: [EncodedInput: Int] = [:]
        if let previous, previous.model.hidden == model.hidden {
            for slot in previous.layout.position { previousSlot[EncodedInput(previous.layout.entries[Int(slot)]!.text)] = Int(slot) }
        }
        for (k, entry) in entries.enumerated() {
            if let previous, let slot = previousSlot[EncodedInput(entry.text)] {
                layout.insert(entry, at: k, vectors: previous.layout.vectors(slot))
            } else {
                layout.insert(entry, at: k, vectors: KeywordIndex.encode(entry, model: model, vectors: vectors, options: options))
            }
        }
        layout.settleTail()
        layout.endReservation()
        self.init(model: model, vectors: vectors, options: options, layout: layout, previous: nil)
    }

    private init(model: InferenceModel, vectors: InputVectors, options: ScoringOptions, layout: IndexLayout,
                 previous: KeywordIndex?) {
        self.model = model
        self.options = options
        self.vectors = vectors
        precondition(!layout.isReserving, "a layout still placing chunks in its reservation")
        self.layout = layout
        var order = [Int32](repeating: -1, count: layout.capacity)
        for (k, slot) in layout.position.enumerated() { order[Int(slot)] = Int32(k) }
        self.order = order
        var chunkBlocks = [Int32](repeating: 0, count: layout.chunkCount)
        for slot in layout.position {
            let c = Int(slot) / IndexLayout.chunkSlots
            chunkBlocks[c] = max(chunkBlocks[c], (slot % Int32(IndexLayout.chunkSlots)) / Int32(FloatKernels.lanes) + 1)
        }
        self.chunkBlocks = chunkBlocks
        let h = model.hidden, count = layout.position.count
        if options.hubness > 0 {
            var rows = [Float](repeating: 0, count: count * h)
            for (k, slot) in layout.position.enumerated() {
                let (_, direction) = layout.vectors(Int(slot))
                for q in 0..<h { rows[k * h + q] = direction[q] }
            }
            hubPenalty = KeywordIndex.neighbourMeans(rows, count: count, hidden: h, neighbours: options.hubNeighbours)
        } else {
            hubPenalty = []
        }
        let capacity = layout.capacity, maxNameTokens = options.maxNameTokens
        if let previous, previous.layout.capacity == capacity {
            pool = previous.pool
        } else {
            pool = ScratchPool { IndexScratch(keywords: capacity, padded: capacity, hidden: h, maxTokens: maxNameTokens) }
        }
    }

    /// The index of this list with the keywords at `removals` (indices into this list) taken out, then
    /// `insertions` put in (each at its index in the resulting list, in ascending order). Only inserted
    /// keywords are encoded; the exact-match tables change only where the changed keywords appear.
    /// - Complexity: O(changes · (encoding + keywords sharing their text, rows or bigrams)) plus O(K) for
    ///   moving the per-keyword Int32 arrays once; O(K²·hidden) more with hubness on (its penalty is computed afresh).
    public func applying(removals: [Int], insertions: [(index: Int, entry: KeywordEntry)]) -> KeywordIndex {
        var layout = self.layout
        let encoded = insertions.sorted(by: { $0.index < $1.index }).map { k, entry in
            (index: k, entry: entry, vectors: KeywordIndex.encode(entry, model: model, vectors: vectors, options: options))
        }
        layout.apply(removals: removals, insertions: encoded)
        layout.settleTail()
        return KeywordIndex(model: model, vectors: vectors, options: options, layout: layout, previous: self)
    }

    /// The attention query (mean of unit word states) and direction (unit mean state) of one keyword.
    static func encode(_ entry: KeywordEntry, model: InferenceModel, vectors: InputVectors,
                       options: ScoringOptions) -> (unitMean: [Float], direction: [Float]) {
        let h = model.hidden, m = entry.text.rows.count
        var unitMean = [Float](repeating: 0, count: h), direction = unitMean
        guard m > 0 else { return (unitMean, direction) }
        var projected = [Float](repeating: 0, count: m * h)
        var states = projected
        entry.text.rows.withUnsafeBufferPointer { rows in
            projected.withUnsafeMutableBufferPointer { pr in
                states.withUnsafeMutableBufferPointer { st in
                    model.keyword.encode(rows, subwords: entry.text.subwords, vectors: vectors, kernel: options.kernel, projected: pr.baseAddress!, states: st.baseAddress!)
                }
            }
        }
        var mean = [Float](repeating: 0, count: h)
        for j in 0..<m {
            var sq: Float = 1e-12
            for q in 0..<h { sq += states[j * h + q] * states[j * h + q] }
            let norm = sq.squareRoot()
            for q in 0..<h {
                unitMean[q] += states[j * h + q] / norm / Float(m)
                mean[q] += states[j * h + q] / Float(m)
            }
        }
        var sq: Float = 1e-12
        for q in 0..<h { sq += mean[q] * mean[q] }
        let norm = sq.squareRoot()
        for q in 0..<h { direction[q] = mean[q] / norm }
        return (unitMean, direction)
    }

    /// The best `k` keywords for `name`, best first (ties: lower index first).
    /// - Complexity: O(K · n · hidden + K log k).
    public func search(_ name: LexicalText, k: Int) -> [ScoredKeyword] {
        pool.with { scratch in
            scoreAll(name, scratch)
            return KeywordIndex.top(scratch.internalScores.elements, count: layout.capacity, k: k, order: order,
                                    heap: &scratch.heap)
        }
    }

    /// The best `k` keywords for `name`, best first, each with its exact-match feature values (indexed by
    /// `LexicalFeature`; zeros when evidence is off) and where it is written in the name (`WrittenSpan.none` when
    /// evidence is off). The confidence calibrator reads the values; the name's structure, the spans.
    /// - Complexity: as `search`.
    public func searchWithEvidence(_ name: LexicalText, k: Int) -> [(keyword: ScoredKeyword, evidence: [Float], written: WrittenSpan)] {
        pool.with { scratch in
            scoreAll(name, scratch)
            return topWithEvidence(k, scratch)
        }
    }

    /// Every keyword's score for `name` in index order (as `scores`) and the best `k` with their evidence (as
    /// `searchWithEvidence`), from one scoring pass.
    public func scoresAndSearch(_ name: LexicalText, k: Int)
        -> (scores: [Float], found: [(keyword: ScoredKeyword, evidence: [Float], written: WrittenSpan)]) {
        pool.with { scratch in
            scoreAll(name, scratch)
            return (position.map { scratch.internalScores[Int($0)] }, topWithEvidence(k, scratch))
        }
    }

    private func topWithEvidence(_ k: Int, _ scratch: IndexScratch) -> [(keyword: ScoredKeyword, evidence: [Float], written: WrittenSpan)] {
        let found = KeywordIndex.top(scratch.internalScores.elements, count: layout.capacity, k: k, order: order,
                                     heap: &scratch.heap)
        guard options.evidence else {
            return found.map { ($0, [Float](repeating: 0, count: LexicalFeature.count), WrittenSpan.none) }
        }
        return found.map { scored in
            let slot = Int(position[scored.index])
            var written = scratch.lexical.written(slot)
            // The matcher counts in slots; callers in keyword indices.
            if written.spelledWithin >= 0 { written.spelledWithin = Int(order[written.spelledWithin]) }
            return (scored, Array(scratch.lexical.featureValues(of: slot)), written)
        }
    }

    /// Every keyword's score for `name`, in index order.
    public func scores(_ name: LexicalText) -> [Float] {
        pool.with { scratch in
            scoreAll(name, scratch)
            return position.map { scratch.internalScores[Int($0)] }
        }
    }

    /// The exact-match evidence of `name` for every keyword with any, by keyword index (ascending).
    public func exactMatchEvidence(_ name: LexicalText) -> [(keyword: Int, values: [Float])] {
        matcher.features(of: name).compactMap { slot, values in
            order[slot] >= 0 ? (Int(order[slot]), values) : nil
        }.sorted { $0.keyword < $1.keyword }
    }

    /// The attention weight of each name token for keyword `index` (uniform when attention is off).
    public func attention(_ name: LexicalText, keyword index: Int) -> [Float] {
        pool.with { scratch in
            let n = encodeName(name, scratch)
            guard n > 0, index >= 0, index < count else { return [] }
            attentionWeights(n: n, keyword: index, scratch)
            return scratch.alpha.prefix(n)
        }
    }

    // MARK: - Scoring

    private func encodeName(_ name: LexicalText, _ scratch: IndexScratch) -> Int {
        let n = min(name.rows.count, options.maxNameTokens)
        guard n > 0 else { return 0 }
        let h = model.hidden
        name.rows.withUnsafeBufferPointer { all in
            let rows = UnsafeBufferPointer(rebasing: all[0..<n])
            model.name.encode(rows, subwords: name.subwords, vectors: vectors, kernel: options.kernel, projected: scratch.projected.base,
                              states: scratch.states.base)
        }
        for i in 0..<n {
            var sq: Float = 1e-12
            for q in 0..<h { sq += scratch.states[i * h + q] * scratch.states[i * h + q] }
            let inverse = 1 / sq.squareRoot()
            for q in 0..<h { scratch.units[i * h + q] = scratch.states[i * h + q] * inverse }
        }
        let states = scratch.states.base
        for i in 0..<n {
            for j in i..<n {
                let g = FloatKernels.dot(states + i * h, states + j * h, h)
                scratch.gram[i * n + j] = g
                scratch.gram[j * n + i] = g
            }
        }
        return n
    }

    private func attentionWeights(n: Int, keyword k: Int, _ scratch: IndexScratch) {
        let h = model.hidden
        guard options.attention else {
            for i in 0..<n { scratch.alpha[i] = 1 / Float(n) }
            return
        }
        let tau = model.temperature
        var largest = -Float.infinity
        let (unitMean, _) = layout.vectors(Int(position[k]))
        for i in 0..<n {
            var a: Float = 0
            for q in 0..<h { a += scratch.units[i * h + q] * unitMean[q] }
            scratch.alpha[i] = tau * a
            largest = max(largest, tau * a)
        }
        var total: Float = 0
        for i in 0..<n {
            let e = expf(scratch.alpha[i] - largest)
            scratch.alpha[i] = e
            total += e
        }
        for i in 0..<n { scratch.alpha[i] /= total }
    }

    /// Leaves every slot's score in `scratch.internalScores` (free slots hold meaningless values; see `order`).
    private func scoreAll(_ name: LexicalText, _ scratch: IndexScratch) {
        let n = encodeName(name, scratch)
        let capacity = layout.capacity
        if n > 0 {
            let chunks = layout.chunkCount
            let threads = capacity >= 16_384 && chunks > 1 ? 2 : 1
            if threads == 1 {
                scoreChunks(0..<chunks, n: n, scratch, work: scratch.work.mutableElements)
            } else {
                let half = chunks / 2, work = scratch.work.mutableElements
                // Each thread writes only its own chunks' scores and its own part of `work`.
                struct Shared: @unchecked Sendable { let index: KeywordIndex; let scratch: IndexScratch
                    let work: UnsafeMutableBufferPointer<SIMD8<Float>> }
                let shared = Shared(index: self, scratch: scratch, work: work)
                DispatchQueue.concurrentPerform(iterations: 2) { part in
                    let range = part == 0 ? 0..<half : half..<chunks
                    let own = UnsafeMutableBufferPointer(rebasing: shared.work[(part * 3 * n)..<((part + 1) * 3 * n)])
                    shared.index.scoreChunks(range, n: n, shared.scratch, work: own)
                }
            }
        } else {
            for p in 0..<capacity { scratch.internalScores[p] = 0 }
        }
        if options.evidence {
            matcher.match(name, into: &scratch.lexical)
            let weights = model.featureWeights, scale = options.evidenceScale
            for k32 in scratch.lexical.touched {
                let k = Int(k32)
                var bonus: Float = 0
                for f in 0..<LexicalFeature.count {
                    bonus += weights[f] * scratch.lexical.features[k * LexicalFeature.count + f]
                }
                scratch.internalScores[k] += bonus * scale
            }
        }
        let beta = options.hubness
        if beta != 0 {
            for p in 0..<capacity where order[p] >= 0 { scratch.internalScores[p] -= beta * hubPenalty[Int(order[p])] }
        }
    }

    /// Scores the slots of `chunks` with the vector kernel, one chunk (`IndexLayout.chunkSlots` slots) at a time.
    private func scoreChunks(_ chunks: Range<Int>, n: Int, _ scratch: IndexScratch,
                             work: UnsafeMutableBufferPointer<SIMD8<Float>>) {
        guard let first = chunks.first, let workBase = work.baseAddress else { return }
        let blocks = IndexLayout.chunkSlots / FloatKernels.lanes, size = layout.chunkFloats
        let out = scratch.internalScores.mutableElements
        // The sizes are checked once, on the first chunk; every chunk has the same shape.
        var arguments = FloatKernels.arguments(
            n: n, hidden: model.hidden, blocks: blocks, singleBlocks: 0, temperature: model.temperature,
            attention: options.attention, states: scratch.states.elements, units: scratch.units.elements,
            gram: scratch.gram.elements,
            unitMeans: UnsafeBufferPointer(start: UnsafePointer(bitPattern: layout.meanAddresses[first]), count: size),
            directions: UnsafeBufferPointer(start: UnsafePointer(bitPattern: layout.directionAddresses[first]), count: size),
            out: UnsafeMutableBufferPointer(rebasing: out[(first * IndexLayout.chunkSlots)..<((first + 1) * IndexLayout.chunkSlots)]))
        assert(chunks.upperBound * IndexLayout.chunkSlots <= out.count, "scores shorter than the chunks")
        layout.meanAddresses.withUnsafeBufferPointer { means in
            layout.directionAddresses.withUnsafeBufferPointer { directions in
                for c in chunks {
                    // Blocks after a chunk's last keyword hold only free slots, whose scores are never read.
                    let used = Int(chunkBlocks[c])
                    assert(used <= blocks, "more blocks than a chunk holds")
                    if used == 0 { continue }
                    arguments.blocks = used
                    arguments.single_blocks = layout.isSingle(chunk: c) ? used : 0
                    arguments.unit_means = UnsafePointer(bitPattern: means[c])
                    arguments.directions = UnsafePointer(bitPattern: directions[c])
                    arguments.out = out.baseAddress! + c * IndexLayout.chunkSlots
                    FloatKernels.scoreAll(kernel: options.kernel, &arguments, work: workBase)
                }
            }
        }
    }

    /// Indices of the `k` largest of the first `count` scores, best first; ties go to the lower index. With
    /// `order`, `scores[p]` belongs to keyword `order[p]`, and that keyword index is reported and compared;
    /// slots whose `order` is negative are skipped.
    /// - Complexity: O(count · log k).
    static func top<Scores: RandomAccessCollection<Float>>(
        _ scores: Scores, count: Int? = nil, k: Int, order: [Int32]? = nil, heap: inout [ScoredKeyword]
    ) -> [ScoredKeyword] where Scores.Index == Int {
        let total = count ?? scores.count
        let k = min(k, total)
        guard k > 0 else { return [] }
        heap.removeAll(keepingCapacity: true)
        let positions = order ?? [], permuted = order != nil
        // Min-heap on (score, -index): the root is the worst kept entry.
        @inline(__always) func worse(_ a: ScoredKeyword, _ b: ScoredKeyword) -> Bool {
            a.score < b.score || (a.score == b.score && a.index > b.index)
        }
        // Once the heap is full, a score below its root's can never enter: skip it without building a candidate.
        var floor = -Float.infinity
        for i in 0..<total {
            let score = scores[i]
            if score < floor { continue }
            if permuted && positions[i] < 0 { continue }
            let candidate = ScoredKeyword(index: permuted ? Int(positions[i]) : i, score: score)
            if heap.count < k {
                heap.append(candidate)
                var c = heap.count - 1
                while c > 0 {
                    let p = (c - 1) / 2
                    if worse(heap[c], heap[p]) { heap.swapAt(c, p); c = p } else { break }
                }
            } else if worse(heap[0], candidate) {
                heap[0] = candidate
                var p = 0
                while true {
                    let l = 2 * p + 1, r = l + 1
                    var m = p
                    if l < k && worse(heap[l], heap[m]) { m = l }
                    if r < k && worse(heap[r], heap[m]) { m = r }
                    if m == p { break }
                    heap.swapAt(p, m)
                    p = m
                }
            }
            if heap.count == k { floor = heap[0].score }
        }
        return heap.sorted { worse($1, $0) }
    }

    /// For each keyword, the mean cosine of its direction to its `neighbours` nearest other keywords
    /// (among at most the first 4,096, to bound the cost for huge lists).
    static func neighbourMeans(_ rows: [Float], count: Int, hidden h: Int, neighbours: Int) -> [Float] {
        let reference = min(count, 4096)
        var result = [Float](repeating: 0, count: count)
        guard reference > 1, neighbours > 0 else { return result }
        var sims = [Float](repeating: 0, count: reference)
        var heap: [ScoredKeyword] = []
        rows.withUnsafeBufferPointer { d in
            for k in 0..<count {
                for j in 0..<reference {
                    sims[j] = j == k ? -Float.infinity : FloatKernels.dot(d.baseAddress! + k * h, d.baseAddress! + j * h, h)
                }
                let best = top(sims, k: min(neighbours, reference - 1), heap: &heap)
                result[k] = best.reduce(0) { $0 + $1.score } / Float(max(1, best.count))
            }
        }
        return result
    }
}
