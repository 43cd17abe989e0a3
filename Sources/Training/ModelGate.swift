// The promotion gate: a candidate against the live model on the same labelled names, paired name by name.
import Foundation
import KeywordIndex
import ModelStorage
import SuggestionRuntime
import StoreInterface
import TrainingData

/// A named set of labelled names the gate compares on.
public struct GateSet: Sendable {
    public var name: String
    public var data: [LabelledName]
    public init(name: String, data: [LabelledName]) {
        self.name = name
        self.data = data
    }
}

/// One set's comparison. Acc@1 decides; MRR is shown beside it.
public struct GateComparison: Codable, Sendable, Equatable {
    public var set: String
    public var n: Int
    public var live: Double
    public var candidate: Double
    public var liveMRR: Double
    public var candidateMRR: Double
    /// Twice the standard error of the paired per-name Acc@1 difference: the noise the gate allows.
    public var noise: Double
    /// True when the candidate's Acc@1 is lower than the live model's by more than `noise`.
    public var worse: Bool

    enum CodingKeys: String, CodingKey {
        case set, n, live, candidate, noise, worse
        case liveMRR = "live_mrr"
        case candidateMRR = "candidate_mrr"
    }

    public var difference: Double { candidate - live }
}

/// What a promotion recorded: the comparison, or that it was forced past the gate.
public struct GateReport: Codable, Sendable, Equatable {
    public var live: String
    public var candidate: String
    public var sets: [GateComparison]
    /// The calibration comparison of each set (absent in reports stored before the gate checked calibration).
    public var calibration: [GateCalibration]?
    public var forced: Bool

    public init(live: String, candidate: String, sets: [GateComparison], calibration: [GateCalibration]? = nil,
                forced: Bool) {
        self.live = live
        self.candidate = candidate
        self.sets = sets
        self.calibration = calibration
        self.forced = forced
    }

    public var passed: Bool { !sets.contains(where: \.worse) && !(calibration ?? []).contains(where: \.worse) }

    /// The sets the candidate is refused on, by Acc@1 or by calibration.
    public var refusedSets: [String] {
        sets.filter(\.worse).map { "\($0.set) (Acc@1)" } + (calibration ?? []).filter(\.worse).map { "\($0.set) (calibration)" }
    }

    /// Compact JSON, as the registry keeps it beside the version.
    public var json: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return (try? encoder.encode(self)).map { String(decoding: $0, as: UTF8.self) } ?? "{}"
    }

    /// One line per set: `dev.jsonl  n 1397  Acc@1 0.9327 → 0.9341 (+0.0014, noise ±0.0052)  MRR …  ok`, then
    /// one per set's calibration.
    public var lines: [String] {
        sets.map { set in
            let sign = set.difference >= 0 ? "+" : ""
            return "\(set.set)  n \(set.n)  Acc@1 \(Self.format(set.live)) → \(Self.format(set.candidate)) "
                + "(\(sign)\(Self.format(set.difference)), noise ±\(Self.format(set.noise)))  "
                + "MRR \(Self.format(set.liveMRR)) → \(Self.format(set.candidateMRR))  \(set.worse ? "WORSE" : "ok")"
        } + (calibration ?? []).map(\.line)
    }

    public static func format(_ value: Double) -> String { String(format: "%.4f", value) }
}

public enum ModelGate {
    /// Compares `candidate` with `live` on each set. Each model ranks its own list with the store's keyword
    /// changes applied, as it would serve; a name whose keywords a model does not list is a miss for it.
    /// Sets without names are skipped.
    public static func compare(live: LoadedModel, candidate: LoadedModel, overlay: KeywordOverlay,
                               sets: [GateSet], threads: Int = 2) throws -> [GateComparison] {
        let liveIndex = try live.makeIndex(keywords: ModelEngine.apply(overlay, to: live.keywords))
        let candidateIndex = try candidate.makeIndex(keywords: ModelEngine.apply(overlay, to: candidate.keywords))
        return comparisons(sets.filter { !$0.data.isEmpty }, live: live, liveIndex: liveIndex, candidate: candidate,
                           candidateIndex: candidateIndex, threads: threads)
    }

    /// Each set's paired comparison, each model ranking with its own index and roles, as it would serve.
    static func comparisons(_ sets: [GateSet], live: LoadedModel, liveIndex: KeywordIndex, candidate: LoadedModel,
                            candidateIndex: KeywordIndex, threads: Int) -> [GateComparison] {
        let liveRoles = KeywordRoles(model: live), candidateRoles = KeywordRoles(model: candidate)
        return sets.map { set in
            let a = Evaluator.rankings(set.data, index: liveIndex, analyzer: live.analyzer, roles: liveRoles, threads: threads)
            let b = Evaluator.rankings(set.data, index: candidateIndex, analyzer: candidate.analyzer, roles: candidateRoles,
                                       threads: threads)
            return comparison(set.name, live: a.map(\.best), candidate: b.map(\.best))
        }
    }

    /// Acc@1 and calibration on each set (see `compare` and `CalibrationGate.compare`), with one index per model.
    public static func evaluate(live: LoadedModel, candidate: LoadedModel, overlay: KeywordOverlay, sets: [GateSet],
                                target: Double, threads: Int = 2) throws -> (sets: [GateComparison], calibration: [GateCalibration]) {
        let liveIndex = try live.makeIndex(keywords: ModelEngine.apply(overlay, to: live.keywords))
        let candidateIndex = try candidate.makeIndex(keywords: ModelEngine.apply(overlay, to: candidate.keywords))
        let used = sets.filter { !$0.data.isEmpty }
        let compared = comparisons(used, live: live, liveIndex: liveIndex, candidate: candidate,
                                   candidateIndex: candidateIndex, threads: threads)
        let calibration = used.compactMap { set in
            CalibrationGate.compare(set, live: live, liveIndex: liveIndex, candidate: candidate,
                                    candidateIndex: candidateIndex, target: target, threads: threads)
        }
        return (compared, calibration)
    }

    /// The paired comparison of two rank lists over the same names.
    public static func comparison(_ name: String, live: [Int?], candidate: [Int?]) -> GateComparison {
        let n = min(live.count, candidate.count)
        func hit(_ rank: Int?) -> Double { rank == 1 ? 1 : 0 }
        func reciprocal(_ rank: Int?) -> Double { rank.map { 1 / Double($0) } ?? 0 }
        var differences: [Double] = []
        var liveHits = 0.0, candidateHits = 0.0, liveRR = 0.0, candidateRR = 0.0
        for i in 0..<n {
            liveHits += hit(live[i]); candidateHits += hit(candidate[i])
            liveRR += reciprocal(live[i]); candidateRR += reciprocal(candidate[i])
            differences.append(hit(candidate[i]) - hit(live[i]))
        }
        let count = Double(max(n, 1))
        let mean = differences.reduce(0, +) / count
        let variance = n > 1 ? differences.map { ($0 - mean) * ($0 - mean) }.reduce(0, +) / Double(n - 1) : 0
        let noise = 2 * (variance / count).squareRoot()
        return GateComparison(set: name, n: n, live: liveHits / count, candidate: candidateHits / count,
                              liveMRR: liveRR / count, candidateMRR: candidateRR / count, noise: noise,
                              worse: mean < 0 && -mean > noise)
    }
}
