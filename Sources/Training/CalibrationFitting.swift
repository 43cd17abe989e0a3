// Fitting the confidence calibrator on held-out labelled names, and measuring calibration (ECE, Brier,
// coverage at a top-1 precision, bootstrap intervals) on others.
import Dispatch
import Foundation
import KeywordIndex
import KeywordModel
import ModelStorage
import SuggestionRuntime
import TrainingData

/// Which candidates count as acceptable for a labelled name: any of its keywords, matched by string or, failing
/// that, by kana-folded text (the rule `Evaluator` uses).
public struct AcceptableKeywords: Sendable {
    private let position: [String: Int]
    private let folded: [[UInt32]: Int]
    private let analyzer: any TextAnalyzer

    public init(index: KeywordIndex, analyzer: any TextAnalyzer) {
        var position: [String: Int] = [:]
        var folded: [[UInt32]: Int] = [:]
        for (k, entry) in index.entries.enumerated() {
            if position[entry.keyword] == nil { position[entry.keyword] = k }
            if folded[entry.text.folded] == nil { folded[entry.text.folded] = k }
        }
        self.position = position
        self.folded = folded
        self.analyzer = analyzer
    }

    public func positives(_ keywords: [String]) -> Set<Int> {
        Set(keywords.compactMap { position[$0] ?? folded[analyzer.analyzeKeyword($0).lexical.folded] })
    }
}

/// The ranked suggestions of one labelled name: features and whether each is acceptable, best first, and whether
/// the first is the head of the name (`NameHead`), which serving's auto-accept also needs.
public struct LabelledSuggestions: Sendable {
    public var features: [[Double]]
    public var correct: [Bool]
    public var firstIsHead: Bool

    public init(features: [[Double]], correct: [Bool], firstIsHead: Bool) {
        self.features = features
        self.correct = correct
        self.firstIsHead = firstIsHead
    }
}

public enum CalibrationFitting {
    /// Suggestions fitted per name: deep enough that the rank features see the tail `k` requests reach.
    public static let depth = 10

    /// The top `depth` suggestions of every name with features and labels, in input order, in serving order
    /// (`roles` as serving reads them).
    /// - Complexity: O(N · K · n · hidden), split over `threads`.
    public static func collect(_ data: [LabelledName], index: KeywordIndex, analyzer: any TextAnalyzer, roles: KeywordRoles,
                               depth: Int = CalibrationFitting.depth, threads: Int = 2) -> [LabelledSuggestions] {
        let acceptable = AcceptableKeywords(index: index, analyzer: analyzer)
        let slots = ConcurrentResults<LabelledSuggestions>(count: data.count, empty: LabelledSuggestions(features: [], correct: [], firstIsHead: false))
        let shards = max(1, threads)
        DispatchQueue.concurrentPerform(iterations: shards) { shard in
            var i = shard
            while i < data.count {
                let positives = acceptable.positives(data[i].keywords)
                let lexical = analyzer.analyzeName(data[i].name).lexical
                let ranked = ConfidenceFeatures.ranked(index, name: lexical, k: max(depth, NameHead.depth), roles: roles)
                let kept = ranked.prefix(depth)
                slots.set(i, LabelledSuggestions(features: kept.map(\.features),
                                                 correct: kept.map { positives.contains($0.keyword.index) },
                                                 firstIsHead: NameHead.firstIsHead(ranked, name: lexical)))
                i += shards
            }
        }
        return slots.values
    }

    /// Fits the logistic calibrator on `samples` and computes its top-1 precision curve on them.
    public static func fit(_ samples: [LabelledSuggestions], encoderSHA256: String, description: String) -> ModelCalibration {
        var x: [[Double]] = []
        var y: [Bool] = []
        for name in samples {
            x.append(contentsOf: name.features)
            y.append(contentsOf: name.correct)
        }
        let model = LogisticRegression.fit(x, y)
        let top = samples.compactMap { name in name.features.first.map { (model.probability($0), name.correct[0]) } }
        let hits = samples.filter { $0.correct.first == true }.count
        let summary = ModelCalibration.FitSummary(data: description, names: samples.count, depth: depth, suggestions: x.count,
                                                  accuracyAt1: Double(hits) / Double(max(samples.count, 1)))
        let calibration = ModelCalibration(encoderSHA256: encoderSHA256, mean: model.mean, scale: model.scale,
                                           weights: model.weights, bias: model.bias, fittedOn: summary,
                                           curve: ModelCalibration.curve(top, total: samples.count))
        return calibration
    }
}
