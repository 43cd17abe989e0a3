// The gate's second question: does the candidate's confidence mean what it says? What it would auto-accept at the
// target precision, how much, and how far its confidence is from its accuracy (ECE), against the live model's.
import Foundation
import KeywordIndex
import ModelStorage
import SuggestionRuntime
import TrainingData

/// One model's calibration figures on one set.
public struct CalibrationFigures: Codable, Sendable, Equatable {
    /// The confidence threshold its calibration gives for the target; nil when none reaches it.
    public var threshold: Double?
    /// Share of the names whose top confidence is at least the threshold and whose first keyword is the head of the
    /// name (what it would auto-accept).
    public var coverage: Double
    /// Top-1 precision of those names; nil when it would accept none.
    public var precision: Double?
    /// Expected calibration error of the top suggestion (10 equal-width bins).
    public var ece: Double

    public init(threshold: Double?, coverage: Double, precision: Double?, ece: Double) {
        self.threshold = threshold
        self.coverage = coverage
        self.precision = precision
        self.ece = ece
    }
}

/// One set's calibration comparison.
public struct GateCalibration: Codable, Sendable, Equatable {
    public var set: String
    public var n: Int
    public var target: Double
    public var live: CalibrationFigures
    public var candidate: CalibrationFigures
    /// Twice the standard error of the difference of the two precisions at the target.
    public var precisionNoise: Double
    /// Twice the bootstrap standard deviation of the paired ECE difference.
    public var eceNoise: Double
    /// Why the candidate is refused on this set; empty when it is not.
    public var problems: [String]

    enum CodingKeys: String, CodingKey {
        case set, n, target, live, candidate, problems
        case precisionNoise = "precision_noise"
        case eceNoise = "ece_noise"
    }

    public var worse: Bool { !problems.isEmpty }

    /// `dev.jsonl  at 0.98: precision 0.9912 → 0.9340 (noise ±0.0120), coverage 0.402 → 0.999  ECE 0.0210 → 0.0650 (noise ±0.0080)  WORSE`
    public var line: String {
        func precision(_ value: Double?) -> String { value.map(GateReport.format) ?? "none" }
        return "\(set)  at \(target): precision \(precision(live.precision)) → \(precision(candidate.precision)) "
            + "(noise ±\(GateReport.format(precisionNoise))), coverage \(String(format: "%.3f", live.coverage)) → "
            + "\(String(format: "%.3f", candidate.coverage))  ECE \(GateReport.format(live.ece)) → \(GateReport.format(candidate.ece)) "
            + "(noise ±\(GateReport.format(eceNoise)))  " + (worse ? "WORSE: " + problems.joined(separator: "; ") : "ok")
    }
}

public enum CalibrationGate {
    /// One name's first suggestion as the model would serve it: its confidence, whether it is right, and whether
    /// it is the head of the name (serving auto-accepts only a head, see `NameHead`).
    struct TopSuggestion {
        var confidence: Double
        var correct: Bool
        var isHead: Bool
    }

    /// The first suggestion of every name; nil without calibration.
    static func tops(_ data: [LabelledName], model: LoadedModel, index: KeywordIndex, threads: Int) -> [TopSuggestion]? {
        guard let calibration = model.calibration else { return nil }
        return CalibrationFitting.collect(data, index: index, analyzer: model.analyzer, roles: KeywordRoles(model: model), depth: 2, threads: threads).map { name in
            guard let features = name.features.first else { return TopSuggestion(confidence: 0, correct: false, isHead: false) }
            return TopSuggestion(confidence: calibration.confidence(features), correct: name.correct[0], isHead: name.firstIsHead)
        }
    }

    /// A model's figures over its first suggestions at its own threshold for `target`: what serving would
    /// auto-accept (confidence at least the threshold, and the head of the name), and the ECE of them all.
    static func figures(_ tops: [TopSuggestion], threshold: Double?) -> CalibrationFigures {
        let accepted = tops.filter { NameHead.autoAccepts(confidence: $0.confidence, threshold: threshold, isHead: $0.isHead) }
        let right = accepted.filter(\.correct).count
        return CalibrationFigures(threshold: threshold, coverage: Double(accepted.count) / Double(max(tops.count, 1)),
                                  precision: accepted.isEmpty ? nil : Double(right) / Double(accepted.count),
                                  ece: CalibrationMetrics.ece(pairs(tops)))
    }

    static func pairs(_ tops: [TopSuggestion]) -> [(Double, Bool)] { tops.map { ($0.confidence, $0.correct) } }

    /// Compares the two models' calibration on one set: the candidate is refused when its precision at the target
    /// is below the target and below the live model's by more than the noise, or when its ECE is worse than the
    /// live model's by more than the noise. Sets where either model has no calibration are skipped (nil).
    public static func compare(_ set: GateSet, live: LoadedModel, liveIndex: KeywordIndex, candidate: LoadedModel,
                               candidateIndex: KeywordIndex, target: Double, threads: Int = 2) -> GateCalibration? {
        guard !set.data.isEmpty,
              let liveTops = tops(set.data, model: live, index: liveIndex, threads: threads),
              let candidateTops = tops(set.data, model: candidate, index: candidateIndex, threads: threads) else {
            return nil
        }
        let a = figures(liveTops, threshold: live.calibration?.threshold(forPrecision: target))
        let b = figures(candidateTops, threshold: candidate.calibration?.threshold(forPrecision: target))
        let n = Double(set.data.count)
        func variance(_ figures: CalibrationFigures) -> Double {
            guard let p = figures.precision, figures.coverage > 0 else { return 0 }
            return p * (1 - p) / (figures.coverage * n)
        }
        let precisionNoise = 2 * (variance(a) + variance(b)).squareRoot()
        let eceNoise = 2 * bootstrapSD(pairs(liveTops), pairs(candidateTops))
        var problems: [String] = []
        if let candidatePrecision = b.precision, candidatePrecision < target,
           candidatePrecision < (a.precision ?? target) - precisionNoise {
            problems.append("precision at the target below it and below the live model's beyond noise")
        }
        if b.ece - a.ece > eceNoise {
            problems.append("ECE worse beyond noise")
        }
        return GateCalibration(set: set.name, n: set.data.count, target: target, live: a, candidate: b,
                               precisionNoise: precisionNoise, eceNoise: eceNoise, problems: problems)
    }

    /// The standard deviation of ECE(candidate) − ECE(live) over 200 paired resamples of the names (a fixed seed,
    /// so the gate answers the same for the same models and names).
    static func bootstrapSD(_ live: [(Double, Bool)], _ candidate: [(Double, Bool)], rounds: Int = 200) -> Double {
        let n = min(live.count, candidate.count)
        guard n > 1 else { return 0 }
        var state: UInt64 = 0x5eed
        func next() -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(n))
        }
        var differences: [Double] = []
        for _ in 0..<rounds {
            var a: [(Double, Bool)] = [], b: [(Double, Bool)] = []
            a.reserveCapacity(n); b.reserveCapacity(n)
            for _ in 0..<n {
                let i = next()
                a.append(live[i]); b.append(candidate[i])
            }
            differences.append(CalibrationMetrics.ece(b) - CalibrationMetrics.ece(a))
        }
        let mean = differences.reduce(0, +) / Double(rounds)
        return (differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(rounds - 1)).squareRoot()
    }
}
