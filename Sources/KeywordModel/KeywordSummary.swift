// Forward-only scoring of one name against many keywords in Float64, used to mine hard negatives.
import Dispatch

/// What the scorer needs of a keyword: the mean of its unit word states (attention query) and its unit
/// mean state (cosine target). Both are `hidden` long; zero when the keyword has no tokens.
struct KeywordSummary {
    var unitMean: [Double]
    var direction: [Double]

    init(states: [Double], hidden h: Int) {
        let m = states.count / h
        unitMean = [Double](repeating: 0, count: h)
        direction = [Double](repeating: 0, count: h)
        guard m > 0 else { return }
        for j in 0..<m {
            var sq = AttentionScorer.epsilon
            for q in 0..<h { sq += states[j * h + q] * states[j * h + q] }
            let norm = sq.squareRoot()
            for q in 0..<h {
                unitMean[q] += states[j * h + q] / norm / Double(m)
                direction[q] += states[j * h + q] / Double(m)
            }
        }
        var sq = AttentionScorer.epsilon
        for q in 0..<h { sq += direction[q] * direction[q] }
        let norm = sq.squareRoot()
        for q in 0..<h { direction[q] /= norm }
    }
}

/// Ranks the whole keyword universe for training names with the current weights (full logits, features
/// included) and returns the best non-positive keywords of each: the hard negatives.
public enum HardNegativeMiner {
    /// - Complexity: O(E · K · n · hidden) plus encoding.
    public static func mine(_ weights: ModelWeights, vectors: InputVectors, keywords: [LexicalText],
                            examples: [TrainingExample], count: Int, attention: Bool, threads: Int) -> [[Int]] {
        let layout = weights.layout, h = weights.config.hiddenDimension, parameters = weights.values
        let summaries = ShardBox<[KeywordSummary]>(count: max(1, threads)) { _ in [] }
        let shards = max(1, threads)
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var local: [KeywordSummary] = []
            var k = shard
            while k < keywords.count {
                let states = SequenceEncoder.forward(keywords[k], parameters: parameters, layout: layout.keyword,
                                                     vectors: vectors).states
                local.append(KeywordSummary(states: states, hidden: h))
                k += shards
            }
            summaries.set(shard, local)
        }
        let all = (0..<keywords.count).map { summaries.get($0 % shards)[$0 / shards] }
        let tau = parameters[layout.temperature], scale = weights.config.scale
        let featureWeights = Array(parameters[layout.features..<(layout.features + layout.featureCount)])
        let results = ShardBox<[(Int, [Int])]>(count: shards) { _ in [] }
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var local: [(Int, [Int])] = []
            var e = shard
            var scores = [Double](repeating: 0, count: keywords.count)
            while e < examples.count {
                let example = examples[e]
                let states = SequenceEncoder.forward(example.name, parameters: parameters, layout: layout.name,
                                                     vectors: vectors).states
                let n = states.count / h
                var units = states
                var gram = [Double](repeating: 0, count: n * n)
                for i in 0..<n {
                    var sq = AttentionScorer.epsilon
                    for q in 0..<h { sq += states[i * h + q] * states[i * h + q] }
                    for q in 0..<h { units[i * h + q] /= sq.squareRoot() }
                    for j in 0..<n {
                        var dot = 0.0
                        for q in 0..<h { dot += states[i * h + q] * states[j * h + q] }
                        gram[i * n + j] = dot
                    }
                }
                var alpha = [Double](repeating: 0, count: n), b = [Double](repeating: 0, count: n)
                for k in 0..<keywords.count {
                    var s = 0.0
                    if n > 0 {
                        var largest = -Double.infinity
                        for i in 0..<n {
                            var a = 0.0, dot = 0.0
                            for q in 0..<h {
                                a += units[i * h + q] * all[k].unitMean[q]
                                dot += states[i * h + q] * all[k].direction[q]
                            }
                            alpha[i] = attention ? tau * a : 0
                            b[i] = dot
                            largest = max(largest, alpha[i])
                        }
                        var total = 0.0
                        for i in 0..<n { alpha[i] = expD(alpha[i] - largest); total += alpha[i] }
                        var num = 0.0, quad = AttentionScorer.epsilon
                        for i in 0..<n {
                            alpha[i] /= total
                            num += alpha[i] * b[i]
                        }
                        for i in 0..<n { for j in 0..<n { quad += alpha[i] * alpha[j] * gram[i * n + j] } }
                        s = num / quad.squareRoot()
                    }
                    var z = scale * s
                    if let phi = example.features[k] { for f in 0..<min(phi.count, featureWeights.count) { z += featureWeights[f] * phi[f] } }
                    scores[k] = z
                }
                var best: [Int] = []
                let order = scores.indices.sorted { scores[$0] > scores[$1] || (scores[$0] == scores[$1] && $0 < $1) }
                for k in order where !example.keywords.contains(k) {
                    best.append(k)
                    if best.count >= count { break }
                }
                local.append((e, best))
                e += shards
            }
            results.set(shard, local)
        }
        var mined = [[Int]](repeating: [], count: examples.count)
        for shard in 0..<shards { for (e, list) in results.get(shard) { mined[e] = list } }
        return mined
    }
}
