// The keyword matrix: keyword encodings computed once, and all keywords scored for a name in one pass.
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

/// Scores every keyword for a product name: cosine of the attention-pooled name states with the keyword's
/// mean state, plus learned exact-match evidence, minus an optional hubness penalty.
///
/// Keyword-side encodings (`unitMeans`: mean of unit word states, the attention query; `directions`: unit
/// mean state) live in two contiguous K × hidden Float32 matrices built at init. Per request, the name is
/// encoded once; then for each keyword k, with `U` the unit name states, `H` the states and `G = H Hᵀ`:
/// `α = softmax(τ · U m_k)`, `score = (α · H d_k) / √(αᵀ G α)`. Work space comes from a pool, so a warm
/// index allocates nothing per request apart from the returned array.
public final class KeywordIndex: Sendable {
    public let entries: [KeywordEntry]
    public let model: InferenceModel
    public let options: ScoringOptions
    let vectors: InputVectors
    let matcher: LexicalMatcher
    /// Blocked keyword matrices in internal order (see `slot`).
    let unitMeans: [Float]
    let directions: [Float]
    /// Internal position → keyword index, and back. Keywords of at most one token come first: for them the
    /// attention query equals the direction, so their leading `singleBlocks` blocks need one product, not two.
    let order: [Int32]
    let position: [Int32]
    let singleBlocks: Int
    let hubPenalty: [Float]
    private let pool: ScratchPool

    public var count: Int { entries.count }
    public var keywords: [String] { entries.map(\.keyword) }

    /// Encodes every keyword. Keywords already encoded in `reusing` (same model) are copied, not re-encoded.
    /// - Complexity: O(K · m · hidden · (input + 3 · hidden)) for new keywords; O(K²·hidden) more with hubness on.
    public init(model: InferenceModel, vectors: InputVectors, entries: [KeywordEntry], varieties: [VarietyEntry] = [],
                options: ScoringOptions = ScoringOptions(), reusing previous: KeywordIndex? = nil) {
        self.entries = entries
        self.model = model
        self.options = options
        self.vectors = vectors
        matcher = LexicalMatcher(keywords: entries.map(\.text), varieties: varieties)
        let h = model.hidden, count = entries.count
        let single = entries.indices.filter { entries[$0].text.rows.count <= 1 }
        let multiple = entries.indices.filter { entries[$0].text.rows.count > 1 }
        order = (single + multiple).map { Int32($0) }
        var position = [Int32](repeating: 0, count: count)
        for (p, k) in order.enumerated() { position[Int(k)] = Int32(p) }
        self.position = position
        singleBlocks = single.count / FloatKernels.lanes
        let padded = (count + FloatKernels.lanes - 1) / FloatKernels.lanes * FloatKernels.lanes
        var unitMeans = [Float](repeating: 0, count: padded * h)
        var directions = [Float](repeating: 0, count: padded * h)
        var previousRow: [[Int32]: Int] = [:]
        if let previous, previous.model.hidden == h {
            for (i, entry) in previous.entries.enumerated() { previousRow[entry.text.rows] = Int(previous.position[i]) }
        }
        let maxTokens = max(1, entries.map(\.text.rows.count).max() ?? 1)
        var projected = [Float](repeating: 0, count: maxTokens * h)
        var states = projected
        var mean = [Float](repeating: 0, count: h)
        for (p, k32) in order.enumerated() {
            let entry = entries[Int(k32)]
            if let previous, let i = previousRow[entry.text.rows] {
                for q in 0..<h {
                    unitMeans[KeywordIndex.slot(p, q, h)] = previous.unitMeans[KeywordIndex.slot(i, q, h)]
                    directions[KeywordIndex.slot(p, q, h)] = previous.directions[KeywordIndex.slot(i, q, h)]
                }
                continue
            }
            let m = entry.text.rows.count
            guard m > 0 else { continue }
            entry.text.rows.withUnsafeBufferPointer { rows in
                projected.withUnsafeMutableBufferPointer { pr in
                    states.withUnsafeMutableBufferPointer { st in
                        model.keyword.encode(rows, vectors: vectors, kernel: options.kernel, projected: pr.baseAddress!, states: st.baseAddress!)
                    }
                }
            }
            for q in 0..<h { mean[q] = 0 }
            for j in 0..<m {
                var sq: Float = 1e-12
                for q in 0..<h { sq += states[j * h + q] * states[j * h + q] }
                let norm = sq.squareRoot()
                for q in 0..<h {
                    unitMeans[KeywordIndex.slot(p, q, h)] += states[j * h + q] / norm / Float(m)
                    mean[q] += states[j * h + q] / Float(m)
                }
            }
            var sq: Float = 1e-12
            for q in 0..<h { sq += mean[q] * mean[q] }
            let norm = sq.squareRoot()
            for q in 0..<h { directions[KeywordIndex.slot(p, q, h)] = mean[q] / norm }
        }
        self.unitMeans = unitMeans
        self.directions = directions
        var rows = [Float](repeating: 0, count: count * h)
        if options.hubness > 0 {
            for k in 0..<count { for q in 0..<h { rows[k * h + q] = directions[KeywordIndex.slot(Int(position[k]), q, h)] } }
        }
        hubPenalty = options.hubness > 0
            ? KeywordIndex.neighbourMeans(rows, count: count, hidden: h, neighbours: options.hubNeighbours)
            : [Float](repeating: 0, count: count)
        let maxNameTokens = options.maxNameTokens
        pool = ScratchPool { IndexScratch(keywords: count, padded: padded, hidden: h, maxTokens: maxNameTokens) }
    }

    /// Where component `q` of the keyword at internal position `p` sits in the blocked keyword matrices
    /// (blocks of 8 keywords, component-major inside a block, so one SIMD8 load reads 8 keywords' component).
    @inline(__always) static func slot(_ p: Int, _ q: Int, _ h: Int) -> Int {
        ((p / FloatKernels.lanes) * h + q) * FloatKernels.lanes + p % FloatKernels.lanes
    }

    /// The best `k` keywords for `name`, best first (ties: lower index first).
    /// - Complexity: O(K · n · hidden + K log k).
    public func search(_ name: LexicalText, k: Int) -> [ScoredKeyword] {
        pool.with { scratch in
            scoreAll(name, scratch)
            return KeywordIndex.top(scratch.internalScores.elements, count: count, k: k, order: order, heap: &scratch.heap)
        }
    }

    /// The best `k` keywords for `name`, best first, each with its exact-match feature values (indexed by
    /// `LexicalFeature`; zeros when evidence is off). The confidence calibrator reads them.
    /// - Complexity: as `search`.
    public func searchWithEvidence(_ name: LexicalText, k: Int) -> [(keyword: ScoredKeyword, evidence: [Float])] {
        pool.with { scratch in
            scoreAll(name, scratch)
            let found = KeywordIndex.top(scratch.internalScores.elements, count: count, k: k, order: order, heap: &scratch.heap)
            let evidence = options.evidence
            return found.map { scored in
                (scored, evidence ? Array(scratch.lexical.featureValues(of: scored.index))
                                  : [Float](repeating: 0, count: LexicalFeature.count))
            }
        }
    }

    /// Every keyword's score for `name`, in index order.
    public func scores(_ name: LexicalText) -> [Float] {
        pool.with { scratch in
            scoreAll(name, scratch)
            return position.map { scratch.internalScores[Int($0)] }
        }
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
            model.name.encode(rows, vectors: vectors, kernel: options.kernel, projected: scratch.projected.base,
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
        for i in 0..<n {
            var a: Float = 0
            let p = Int(position[k])
            for q in 0..<h { a += scratch.units[i * h + q] * unitMeans[KeywordIndex.slot(p, q, h)] }
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

    /// Leaves every keyword's score in `scratch.internalScores`, in internal order (see `order`).
    private func scoreAll(_ name: LexicalText, _ scratch: IndexScratch) {
        let n = encodeName(name, scratch)
        let h = model.hidden, count = self.count
        let blocks = (count + FloatKernels.lanes - 1) / FloatKernels.lanes
        if n > 0 {
            let tau = model.temperature, attention = options.attention, single = singleBlocks
            let threads = count >= 16_384 ? 2 : 1
            unitMeans.withUnsafeBufferPointer { means in
                directions.withUnsafeBufferPointer { directions in
                    let arguments = FloatKernels.arguments(
                        n: n, hidden: h, blocks: blocks, singleBlocks: single, temperature: tau, attention: attention,
                        states: scratch.states.elements, units: scratch.units.elements, gram: scratch.gram.elements,
                        unitMeans: means, directions: directions, out: scratch.internalScores.mutableElements)
                    FloatKernels.score(kernel: options.kernel, arguments, threads: threads,
                                       work: scratch.work.mutableElements)
                }
            }
        } else {
            for p in 0..<count { scratch.internalScores[p] = 0 }
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
                scratch.internalScores[Int(position[k])] += bonus * scale
            }
        }
        let beta = options.hubness
        if beta != 0 {
            for p in 0..<count { scratch.internalScores[p] -= beta * hubPenalty[Int(order[p])] }
        }
    }

    /// Indices of the `k` largest of the first `count` scores, best first; ties go to the lower index. With
    /// `order`, `scores[p]` belongs to keyword `order[p]`, and that keyword index is reported and compared.
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
