// Training orchestration: labelled names → training examples → trained weights → a complete model directory.
import Foundation
import KeywordIndex
import KeywordModel

/// Turns labelled names into training examples and trains the encoder, reporting each epoch.
public struct ModelTraining {
    public var base: ModelComponents
    public var config: ModelConfig
    public var options: TrainingOptions

    public init(base: ModelComponents, config: ModelConfig, options: TrainingOptions) {
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
        let matcher = LexicalMatcher(keywords: keywords, varieties: base.varietyEntries())
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

    /// Trains from a seeded initialisation. `onEpoch` receives the report and the weights after each epoch.
    public func train(_ data: [LabelledName], onEpoch: (EpochReport, ModelWeights) -> Void) -> ModelWeights {
        let universe = ModelTraining.universe(data)
        let (keywords, examples) = self.examples(data, universe: universe)
        let trainer = Trainer(vectors: base.vectors, keywords: keywords, examples: examples, options: options)
        return trainer.train(from: ModelWeights(config: config, seed: options.seed), onEpoch: onEpoch)
    }

    /// Dev metrics of `weights` ranked against `keywords` (the model's list by default).
    public func evaluate(_ weights: ModelWeights, on data: [LabelledName], keywords: [String]? = nil,
                         scoring: ScoringOptions = ScoringOptions()) -> EvaluationMetrics {
        var components = base
        components.weights = weights
        guard let index = try? components.makeIndex(keywords: keywords ?? base.keywords, options: scoring) else {
            return EvaluationMetrics()
        }
        let ranks = Evaluator.ranks(data, index: index, analyzer: base.analyzer, threads: options.threads)
        return Evaluator.metrics(data, ranks: ranks).all
    }
}
