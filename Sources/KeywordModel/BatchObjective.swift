// The training loss of one batch (InfoNCE over a shared candidate set) and its exact gradient.
import Dispatch

/// One labelled name: its prepared text and the indices of its keywords in the keyword universe
/// (the first is the primary, most specific keyword; the others are acceptable, more general ones).
public struct TrainingExample: Sendable {
    public var name: LexicalText
    public var keywords: [Int]
    /// Exact-match features of this name against the keyword universe, by keyword index.
    public var features: [Int: [Double]]

    public init(name: LexicalText, keywords: [Int], features: [Int: [Double]] = [:]) {
        self.name = name
        self.keywords = keywords
        self.features = features
    }
}

/// For each example: logits `z_c = scale · cos_c + Σ_f w_f φ_cf` over the candidate keywords, loss
/// `logsumexp(z) − z_primary`, averaged over the batch. The example's other keywords are either masked out
/// or, with `primaryFirst`, kept in the softmax, so the primary (most specific) keyword must outrank them
/// (白ごま above ごま for 「白ごま」).
public struct BatchObjective: Sendable {
    public let vectors: InputVectors
    public let keywords: [LexicalText]
    public let attention: Bool
    public let threads: Int
    /// Candidates whose |∂loss/∂z| is below this are skipped in the backward pass (0 = exact).
    public let skipBelow: Double
    /// Whether a name's acceptable keywords compete with its primary keyword (otherwise they are masked out).
    public let primaryFirst: Bool

    public init(vectors: InputVectors, keywords: [LexicalText], attention: Bool = true, threads: Int = 1,
                skipBelow: Double = 0, primaryFirst: Bool = false) {
        self.vectors = vectors
        self.keywords = keywords
        self.attention = attention
        self.threads = max(1, threads)
        self.skipBelow = skipBelow
        self.primaryFirst = primaryFirst
    }

    /// The mean loss and its gradient with respect to every parameter.
    /// - Complexity: O(B · C · (n + m) · hidden + (B · n + C · m) · hidden · (input + 3 · hidden)).
    /// - Parameter subsets: when given, example e is scored only against `candidates[p]` for p in `subsets[e]`
    ///   (its own hard negatives plus the shared ones), which keeps the cost per name independent of batch size.
    public func evaluate(_ weights: ModelWeights, batch: [TrainingExample], candidates: [Int],
                         subsets: [[Int]]? = nil) -> (loss: Double, gradient: [Double]) {
        let layout = weights.layout
        let h = weights.config.hiddenDimension
        let parameters = weights.values
        let shards = min(threads, max(1, max(batch.count, candidates.count)))
        // 1. Encode the candidates (sharded).
        let encoded = ShardBox<[EncodedSequence?]>(count: shards) { _ in [] }
        let candidateList = candidates
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var local: [EncodedSequence?] = []
            var c = shard
            while c < candidateList.count {
                local.append(SequenceEncoder.forward(keywords[candidateList[c]], parameters: parameters,
                                                     layout: layout.keyword, vectors: vectors))
                c += shards
            }
            encoded.set(shard, local)
        }
        var keywordStates: [EncodedSequence] = []
        keywordStates.reserveCapacity(candidates.count)
        for c in 0..<candidates.count {
            if let sequence = encoded.get(c % shards)[c / shards] { keywordStates.append(sequence) }
        }
        // 2. Score every example against every candidate, backward into names (sharded over examples).
        struct ShardResult {
            var loss = 0.0
            var gradient: [Double]
            var keywordGradients: [[Double]]
        }
        let results = ShardBox<ShardResult?>(count: shards) { _ in nil }
        let scale = weights.config.scale
        let tau = parameters[layout.temperature]
        let featureCount = layout.featureCount
        let featureWeights = Array(parameters[layout.features..<(layout.features + featureCount)])
        let useAttention = attention, skip = skipBelow, rankAlternatives = primaryFirst
        let states = keywordStates
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var result = ShardResult(gradient: [Double](repeating: 0, count: layout.count),
                                     keywordGradients: states.map { [Double](repeating: 0, count: $0.states.count) })
            var e = shard
            while e < batch.count {
                let current = e
                let example = batch[current]
                e += shards
                guard let primary = example.keywords.first else { continue }
                let name = SequenceEncoder.forward(example.name, parameters: parameters, layout: layout.name,
                                                   vectors: vectors)
                var activations = [PairActivation?](repeating: nil, count: candidates.count)
                var logits = [Double](repeating: -.infinity, count: candidates.count)
                var primaryAt = -1
                let positions = subsets?[current] ?? Array(0..<candidates.count)
                for c in positions {
                    let k = candidates[c]
                    if !rankAlternatives && k != primary && example.keywords.contains(k) { continue }
                    if k == primary { primaryAt = c }
                    let act = AttentionScorer.forward(name: name.states, keyword: states[c].states, hidden: h,
                                                      temperature: tau, attention: useAttention)
                    var z = scale * act.score
                    if let phi = example.features[k] {
                        for f in 0..<min(featureCount, phi.count) { z += featureWeights[f] * phi[f] }
                    }
                    logits[c] = z
                    activations[c] = act
                }
                guard primaryAt >= 0 else { continue }
                let largest = logits.max() ?? 0
                var total = 0.0
                for c in 0..<logits.count where logits[c] > -.infinity { total += expD(logits[c] - largest) }
                let logTotal = largest + _log(total)
                result.loss += logTotal - logits[primaryAt]
                var dName = [Double](repeating: 0, count: name.states.count)
                for c in positions {
                    guard let act = activations[c] else { continue }
                    let p = expD(logits[c] - logTotal)
                    let dz = p - (c == primaryAt ? 1 : 0)
                    if abs(dz) < skip { continue }
                    if let phi = example.features[candidates[c]] {
                        for f in 0..<min(featureCount, phi.count) { result.gradient[layout.features + f] += dz * phi[f] }
                    }
                    let pair = AttentionScorer.backward(act, dScore: scale * dz, name: name.states,
                                                        keyword: states[c].states, hidden: h, temperature: tau,
                                                        attention: useAttention)
                    for j in 0..<dName.count { dName[j] += pair.name[j] }
                    for j in 0..<pair.keyword.count { result.keywordGradients[c][j] += pair.keyword[j] }
                    result.gradient[layout.temperature] += pair.temperature
                }
                SequenceEncoder.backward(name, dStates: dName, parameters: parameters, layout: layout.name,
                                         vectors: vectors, gradient: &result.gradient)
            }
            results.set(shard, result)
        }
        var loss = 0.0
        var gradient = [Double](repeating: 0, count: layout.count)
        var keywordGradients = keywordStates.map { [Double](repeating: 0, count: $0.states.count) }
        for shard in 0..<shards {
            guard let result = results.get(shard) else { continue }
            loss += result.loss
            for j in 0..<gradient.count { gradient[j] += result.gradient[j] }
            for c in 0..<keywordGradients.count {
                for j in 0..<keywordGradients[c].count { keywordGradients[c][j] += result.keywordGradients[c][j] }
            }
        }
        // 3. Backward into the keyword encoder (sharded over candidates), reduced in shard order.
        let dKeywords = keywordGradients
        let keywordParts = ShardBox<[Double]>(count: shards) { _ in [] }
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var part = [Double](repeating: 0, count: layout.count)
            var c = shard
            while c < states.count {
                SequenceEncoder.backward(states[c], dStates: dKeywords[c], parameters: parameters,
                                         layout: layout.keyword, vectors: vectors, gradient: &part)
                c += shards
            }
            keywordParts.set(shard, part)
        }
        for shard in 0..<shards {
            let part = keywordParts.get(shard)
            for j in 0..<part.count { gradient[j] += part[j] }
        }
        let n = Double(max(1, batch.count))
        for j in 0..<gradient.count { gradient[j] /= n }
        return (loss / n, gradient)
    }
}

/// One slot per shard, written by exactly one concurrent iteration and read after they all finish.
///
/// Backed by raw storage so that concurrent writes to distinct slots never touch a shared array header.
final class ShardBox<Value>: @unchecked Sendable {
    private let slots: UnsafeMutablePointer<Value>
    private let count: Int
    init(count: Int, _ make: (Int) -> Value) {
        self.count = count
        slots = UnsafeMutablePointer<Value>.allocate(capacity: count)
        for i in 0..<count { (slots + i).initialize(to: make(i)) }
    }
    deinit {
        slots.deinitialize(count: count)
        slots.deallocate()
    }
    func set(_ index: Int, _ value: Value) {
        precondition(index >= 0 && index < count)
        slots[index] = value
    }
    func get(_ index: Int) -> Value {
        precondition(index >= 0 && index < count)
        return slots[index]
    }
}
