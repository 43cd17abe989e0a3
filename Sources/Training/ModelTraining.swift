// Training orchestration: labelled names → training examples → trained weights → a complete model directory.
import Dispatch
import Foundation
import KeywordIndex
import KeywordModel
import ModelStorage
import SuggestionRuntime
import TrainingData

/// Turns labelled names into training examples and trains the encoder, reporting each epoch.
public struct ModelTraining {
    public var base: LoadedModel
    public var config: ModelConfig
    public var options: TrainingOptions

    public init(base: LoadedModel, config: ModelConfig, options: TrainingOptions) {
        self.base = base
        self.config = config
        self.options = options
    }

    /// The keyword universe of training: every keyword that occurs in the training data, in first-seen order.
    /// Keywords that occur only in dev or in keywords.txt are never seen in training, which keeps dev-unseen honest.
    public static func universe(_ data: [LabelledName]) -> [String] {
        var seen = Set<String>()
        var result: [String] = []
        for item in data { for keyword in item.keywords where seen.insert(keyword).inserted { result.append(keyword) } }
        return result
    }

    /// Prepares examples: analysed names, keyword indices and exact-match features against the universe.
    public func examples(_ data: [LabelledName], universe: [String]) -> (keywords: [LexicalText], examples: [TrainingExample]) {
        let position = Dictionary(universe.enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        let keywords = universe.map { base.analyzer.analyzeKeyword($0).lexical }
        let matcher = LexicalMatcher(keywords: keywords, varieties: base.varietyEntries(brandScale: 1))
        var scratch = LexicalScratch(keywordCount: keywords.count)
        var examples: [TrainingExample] = []
        for item in data {
            let name = base.analyzer.analyzeName(item.name).lexical
            matcher.match(name, into: &scratch)
            var features: [Int: [Double]] = [:]
            for k in scratch.touched { features[Int(k)] = scratch.featureValues(of: Int(k)).map(Double.init) }
            let indices = item.keywords.compactMap { position[$0] }
            examples.append(TrainingExample(name: name, keywords: indices, features: features))
        }
        return (keywords, examples)
    }

    /// The scoring kernel of every index built while training (mining, the evidence-scale choice, dev metrics): the
    /// portable one, so the trained weights are the same on every CPU. The AVX2 kernel rounds differently, and
    /// at that size differences flip mined negatives and the chosen evidence scale.
    public static let kernel = ScoringKernel.portable

    /// Trains from a seeded initialisation. `onEpoch` receives the report and the weights after each epoch.
    public func train(_ data: [LabelledName], onEpoch: (EpochReport, ModelWeights) -> Void) -> ModelWeights {
        let universe = ModelTraining.universe(data)
        let (keywords, examples) = self.examples(data, universe: universe)
        let trainer = Trainer(vectors: base.vectors, keywords: keywords, examples: examples, options: options)
        let entries = zip(universe, keywords).map { KeywordEntry(keyword: $0, text: $1) }
        let varieties = base.varietyEntries(brandScale: 1)
        let vectors = base.vectors, count = options.hardNegatives, threads = options.threads
        let attention = options.attention
        let prepared = trainer.examples
        return trainer.train(from: ModelWeights(config: config, seed: options.seed), mine: { weights in
            var scoring = ScoringOptions(attention: attention)
            scoring.kernel = ModelTraining.kernel
            let index = KeywordIndex(model: InferenceModel(weights), vectors: vectors, entries: entries,
                                     varieties: varieties, options: scoring)
            return ModelTraining.mine(index, prepared, count: count, threads: threads)
        }, onEpoch: onEpoch)
    }

    /// Chooses the evidence scale (a multiplier of the exact-match weights, from `candidates`) with the best dev
    /// mean of MRR and primary MRR (the first counts any listed keyword, the second only the most specific one, so
    /// the choice also sees whether 白ごま comes before ごま) and returns the weights with that scale folded in.
    /// Training fits those weights on keywords whose embeddings it has also fitted, which under-weights exact
    /// matches for keywords it has not seen; dev corrects that.
    public func chooseEvidenceScale(_ weights: ModelWeights, on dev: [LabelledName],
                                    candidates: [Float] = [1, 1.25, 1.5, 2, 2.5, 3, 4],
                                    report: (Float, EvaluationMetrics) -> Void = { _, _ in }) -> (weights: ModelWeights, scale: Float) {
        var best: (scale: Float, mrr: Double) = (1, -1)
        for scale in candidates {
            var scoring = ScoringOptions(attention: options.attention)
            scoring.evidenceScale = scale
            let metrics = evaluate(weights, on: dev, scoring: scoring)
            report(scale, metrics)
            let objective = (metrics.mrr + metrics.primaryMRR) / 2
            if objective > best.mrr + 1e-9 { best = (scale, objective) }
        }
        var scaled = weights
        let layout = weights.layout
        for f in 0..<layout.featureCount { scaled.values[layout.features + f] *= Double(best.scale) }
        return (scaled, best.scale)
    }

    /// Chooses the value of the variety evidence for brand and product-line rows (from `candidates`) with the best
    /// dev mean of MRR and primary MRR, for weights whose evidence scale is already chosen. Training sees few
    /// packaged goods, so brand rows rarely fire there and their weight is the one the variety rows of fruit and
    /// vegetables earn; a brand names what a product is, where a flavour beside it (いちご in a yoghurt's name)
    /// only describes it, and dev, which holds packaged goods, says how much more that is worth.
    public func chooseBrandEvidenceScale(_ weights: ModelWeights, on dev: [LabelledName],
                                         candidates: [Float] = [1, 1.5, 2, 2.5, 3, 4],
                                         report: (Float, EvaluationMetrics) -> Void = { _, _ in }) -> Float {
        var best: (scale: Float, mrr: Double) = (1, -1)
        for scale in candidates {
            let metrics = evaluate(weights, on: dev, scoring: ScoringOptions(attention: options.attention), brandScale: scale)
            report(scale, metrics)
            let objective = (metrics.mrr + metrics.primaryMRR) / 2
            if objective > best.mrr + 1e-9 { best = (scale, objective) }
        }
        return best.scale
    }

    /// The `count` best-scoring non-positive keywords of each example under `index` (the Float32 scorer).
    static func mine(_ index: KeywordIndex, _ examples: [TrainingExample], count: Int, threads: Int) -> [[Int]] {
        let shards = max(1, threads)
        let slots = ConcurrentResults<[Int]>(count: examples.count, empty: [])
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var e = shard
            while e < examples.count {
                let example = examples[e]
                let found = index.search(example.name, k: count + example.keywords.count)
                slots.set(e, Array(found.map(\.index).filter { !example.keywords.contains($0) }.prefix(count)))
                e += shards
            }
        }
        return slots.values
    }

    /// Dev metrics of `weights` ranked against `keywords` (the model's list by default), scored with
    /// `ModelTraining.kernel` whatever `scoring.kernel` says.
    /// Brand rows of the varieties table give the variety evidence `brandScale` (1 while training).
    public func evaluate(_ weights: ModelWeights, on data: [LabelledName], keywords: [String]? = nil,
                         scoring: ScoringOptions = ScoringOptions(), brandScale: Float = 1) -> EvaluationMetrics {
        var scoring = scoring
        scoring.kernel = ModelTraining.kernel
        var components = base
        components.weights = weights
        guard let index = try? components.makeIndex(keywords: keywords ?? base.keywords, options: scoring,
                                                    varieties: components.varietyEntries(brandScale: brandScale)) else {
            return EvaluationMetrics()
        }
        let rankings = Evaluator.rankings(data, index: index, analyzer: base.analyzer, roles: KeywordRoles(model: base),
                                          threads: options.threads)
        return Evaluator.metrics(data, rankings: rankings).all
    }
}
