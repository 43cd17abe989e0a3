// Mini-batch training with Adam, hard negatives from the current ranking, and a seeded RNG.
import Foundation

/// Training hyper-parameters, with the defaults of `kwsuggest train`. The shipped model's exact command, which
/// sets its own epoch count, is recorded in its manifest.json and MODEL.md.
public struct TrainingOptions: Sendable {
    public var epochs = 8
    public var batchSize = 32
    public var learningRate = 2e-3
    /// Hard negatives per name, re-mined from the full ranking at the start of every epoch.
    public var hardNegatives = 8
    /// Random keywords added to each batch's shared candidate set.
    public var randomNegatives = 64
    public var seed: UInt64 = 1
    /// Worker threads; results are deterministic for a seed and a thread count.
    public var threads = 2
    public var attention = true
    /// Gradients are clipped to this global L2 norm.
    public var clipNorm = 5.0
    /// Backward pass skips candidates whose |∂loss/∂logit| is below this.
    public var skipBelow = 1e-6
    /// A name's acceptable (more general) keywords compete with its primary one in the loss, so the most
    /// specific keyword the name states is trained to come first (see `BatchObjective.primaryFirst`).
    public var primaryFirst = true
    /// Decoupled weight decay of the sub-word table per step (AdamW's form, times the learning rate): it pulls
    /// each token's input back toward its pretrained word row. 0 leaves the table to Adam alone.
    public var subwordDecay = 0.0

    public init() {}
}

/// What happened in one epoch.
public struct EpochReport: Sendable {
    public var epoch: Int
    public var loss: Double
    public var seconds: Double
}

/// Trains `ModelWeights` on labelled names against a keyword universe.
public struct Trainer: Sendable {
    public let vectors: InputVectors
    public let keywords: [LexicalText]
    public let examples: [TrainingExample]
    public let options: TrainingOptions

    public init(vectors: InputVectors, keywords: [LexicalText], examples: [TrainingExample], options: TrainingOptions) {
        self.vectors = vectors
        self.keywords = keywords
        self.examples = examples.filter { !$0.keywords.isEmpty }
        self.options = options
    }

    /// Runs `options.epochs` epochs from `initial`, calling `onEpoch` after each.
    /// - Parameter mine: returns each example's hard negatives under the given weights (at most
    ///   `options.hardNegatives`, positives excluded); default `HardNegativeMiner` (exact, Float64, slower).
    public func train(from initial: ModelWeights, mine: ((ModelWeights) -> [[Int]])? = nil,
                      onEpoch: (EpochReport, ModelWeights) -> Void = { _, _ in }) -> ModelWeights {
        var weights = initial
        var generator = SeededGenerator(seed: options.seed &* 0x2545_F491_4F6C_DD1D &+ 17)
        let objective = BatchObjective(vectors: vectors, keywords: keywords, attention: options.attention,
                                       threads: options.threads, skipBelow: options.skipBelow,
                                       primaryFirst: options.primaryFirst)
        var adam = Adam(count: weights.values.count, learningRate: options.learningRate)
        var order = Array(examples.indices)
        for epoch in 1...max(1, options.epochs) {
            let started = Date()
            let hard = options.hardNegatives > 0
                ? mine?(weights) ?? HardNegativeMiner.mine(weights, vectors: vectors, keywords: keywords, examples: examples,
                                         count: options.hardNegatives, attention: options.attention,
                                         threads: options.threads)
                : [[Int]](repeating: [], count: examples.count)
            for i in stride(from: order.count - 1, to: 0, by: -1) { order.swapAt(i, generator.below(i + 1)) }
            var totalLoss = 0.0, batches = 0
            var start = 0
            while start < order.count {
                let indices = order[start..<min(order.count, start + options.batchSize)]
                start += options.batchSize
                let batch = indices.map { examples[$0] }
                // Shared candidates: every positive of the batch and the random negatives; each name adds its own
                // hard negatives only (scoring every name against every name's hard negatives costs B× more).
                var at: [Int: Int] = [:]
                var candidates: [Int] = []
                @discardableResult func add(_ k: Int) -> Int {
                    if let p = at[k] { return p }
                    at[k] = candidates.count
                    candidates.append(k)
                    return candidates.count - 1
                }
                for e in indices { examples[e].keywords.forEach { add($0) } }
                for _ in 0..<options.randomNegatives where !keywords.isEmpty { add(generator.below(keywords.count)) }
                let shared = Array(0..<candidates.count)
                let subsets = indices.map { e -> [Int] in
                    var own = shared
                    for k in hard[e] {
                        let p = add(k)
                        if p >= shared.count && !own.contains(p) { own.append(p) }
                    }
                    return own
                }
                let (loss, gradient) = objective.evaluate(weights, batch: batch, candidates: candidates, subsets: subsets)
                adam.step(&weights.values, gradient: gradient, clipNorm: options.clipNorm)
                if options.subwordDecay > 0 {
                    let layout = weights.layout, shrink = 1 - options.learningRate * options.subwordDecay
                    for i in layout.subwords..<layout.temperature { weights.values[i] *= shrink }
                }
                totalLoss += loss
                batches += 1
            }
            let report = EpochReport(epoch: epoch, loss: totalLoss / Double(max(1, batches)),
                                     seconds: Date().timeIntervalSince(started))
            onEpoch(report, weights)
        }
        return weights
    }
}

/// Adam (Kingma & Ba) with global-norm gradient clipping.
struct Adam {
    var m: [Double]
    var v: [Double]
    var t = 0
    let learningRate: Double
    let beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8

    init(count: Int, learningRate: Double) {
        m = [Double](repeating: 0, count: count)
        v = [Double](repeating: 0, count: count)
        self.learningRate = learningRate
    }

    mutating func step(_ values: inout [Double], gradient: [Double], clipNorm: Double) {
        t += 1
        var norm = 0.0
        for g in gradient { norm += g * g }
        norm = norm.squareRoot()
        let clip = norm > clipNorm && norm > 0 ? clipNorm / norm : 1
        let correction1 = 1 - pow(beta1, Double(t)), correction2 = 1 - pow(beta2, Double(t))
        for i in 0..<values.count {
            let g = gradient[i] * clip
            m[i] = beta1 * m[i] + (1 - beta1) * g
            v[i] = beta2 * v[i] + (1 - beta2) * g * g
            values[i] -= learningRate * (m[i] / correction1) / ((v[i] / correction2).squareRoot() + epsilon)
        }
    }
}
