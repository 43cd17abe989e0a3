// How well confidences are calibrated on labelled names: expected calibration error, Brier score, reliability
// bins, and coverage at a top-1 precision, each with a bootstrap interval over names.
import KeywordModel
import ModelStorage

/// Calibration measured on one labelled set.
public struct CalibrationMetrics: Sendable {
    /// A 95 % percentile bootstrap interval.
    public struct Interval: Sendable {
        public var low: Double
        public var high: Double
    }

    /// One of ten equal-width confidence bins of the top suggestions.
    public struct Bin: Sendable {
        public var lower: Double
        public var upper: Double
        public var count: Int
        public var meanConfidence: Double
        public var accuracy: Double
    }

    /// Auto-accepting the top suggestion at the model's threshold for `target` precision.
    public struct Coverage: Sendable {
        public var target: Double
        /// The model's threshold (from its calibration curve); nil when its curve never reaches `target`.
        public var threshold: Double?
        /// Share of all names whose top confidence clears the threshold and whose top suggestion is the head of the
        /// name (what serving auto-accepts), and the top-1 precision among them.
        public var coverage: Double
        public var precision: Double
        public var coverageInterval: Interval
        public var precisionInterval: Interval
        /// The largest coverage any threshold chosen on this very data reaches at `target` precision, heads only
        /// (an upper bound, not a held-out figure).
        public var oracleCoverage: Double
    }

    public var names: Int
    /// Over the top suggestion of each name (names without suggestions are left out).
    public var eceTop1: Double
    public var brierTop1: Double
    /// Over the top five suggestions of each name.
    public var eceTop5: Double
    public var brierTop5: Double
    public var eceTop1Interval: Interval
    public var brierTop1Interval: Interval
    public var bins: [Bin]
    public var coverage: [Coverage]
    public var bootstrapSamples: Int

    /// - Parameters:
    ///   - samples: each name's ranked suggestions (features and labels), from `CalibrationFitting.collect`.
    ///   - bootstrap: resamples of the names (with replacement), seeded, for the intervals.
    /// - Complexity: O(bootstrap · N log N).
    public static func measure(_ samples: [LabelledSuggestions], calibration: ModelCalibration,
                               precisions: [Double] = ModelCalibration.reportedPrecisions,
                               bootstrap: Int = 1000, seed: UInt64 = 1) -> CalibrationMetrics {
        let names = samples.map { name -> ScoredName in
            let confidences = name.features.prefix(5).map(calibration.confidence)
            return ScoredName(confidences: confidences, correct: Array(name.correct.prefix(5)), firstIsHead: name.firstIsHead)
        }
        let all = Array(names.indices)
        let thresholds = precisions.map { calibration.threshold(forPrecision: $0) }
        var generator = SeededGenerator(seed: seed)
        var eceSamples: [Double] = [], brierSamples: [Double] = []
        var coverageSamples = [[Double]](repeating: [], count: precisions.count)
        var precisionSamples = [[Double]](repeating: [], count: precisions.count)
        for _ in 0..<bootstrap {
            let pick = (0..<names.count).map { _ in Int(generator.next() % UInt64(max(names.count, 1))) }
            let top = topPairs(names, pick)
            eceSamples.append(ece(top))
            brierSamples.append(brier(top))
            let heads = topPairs(names, pick, headsOnly: true)
            for (p, threshold) in thresholds.enumerated() {
                let (coverage, precision) = covered(heads, total: pick.count, threshold: threshold)
                coverageSamples[p].append(coverage)
                precisionSamples[p].append(precision)
            }
        }
        let top = topPairs(names, all)
        let heads = topPairs(names, all, headsOnly: true)
        let five = all.flatMap { i in zip(names[i].confidences, names[i].correct).map { ($0, $1) } }
        let coverage = precisions.enumerated().map { p, target -> Coverage in
            let (share, precision) = covered(heads, total: all.count, threshold: thresholds[p])
            return Coverage(target: target, threshold: thresholds[p], coverage: share, precision: precision,
                            coverageInterval: interval(coverageSamples[p]), precisionInterval: interval(precisionSamples[p]),
                            oracleCoverage: oracleCoverage(heads, total: all.count, precision: target))
        }
        return CalibrationMetrics(names: names.count, eceTop1: ece(top), brierTop1: brier(top), eceTop5: ece(five),
                                  brierTop5: brier(five), eceTop1Interval: interval(eceSamples),
                                  brierTop1Interval: interval(brierSamples), bins: bins(top), coverage: coverage,
                                  bootstrapSamples: bootstrap)
    }

    struct ScoredName {
        var confidences: [Double]
        var correct: [Bool]
        var firstIsHead = true
    }

    /// The top suggestion's (confidence, correct) of the picked names; with `headsOnly`, of those whose top
    /// suggestion is the head of the name, the only ones serving auto-accepts (`NameHead`).
    static func topPairs(_ names: [ScoredName], _ pick: [Int], headsOnly: Bool = false) -> [(Double, Bool)] {
        pick.compactMap { i in
            headsOnly && !names[i].firstIsHead ? nil : names[i].confidences.first.map { ($0, names[i].correct[0]) }
        }
    }

    static func bins(_ pairs: [(Double, Bool)]) -> [Bin] {
        let sums = ReliabilityBins(pairs), count = ReliabilityBins.binCount
        return (0..<count).map { b in
            let n = sums.counts[b]
            return Bin(lower: Double(b) / Double(count), upper: Double(b + 1) / Double(count), count: n,
                       meanConfidence: n == 0 ? 0 : sums.confidenceSums[b] / Double(n),
                       accuracy: n == 0 ? 0 : Double(sums.rightCounts[b]) / Double(n))
        }
    }

    /// Expected calibration error over ten equal-width bins (`ReliabilityBins`).
    static func ece(_ pairs: [(Double, Bool)]) -> Double {
        ReliabilityBins(pairs).ece
    }

    static func brier(_ pairs: [(Double, Bool)]) -> Double {
        guard !pairs.isEmpty else { return 0 }
        return pairs.reduce(0) { $0 + ($1.0 - ($1.1 ? 1 : 0)) * ($1.0 - ($1.1 ? 1 : 0)) } / Double(pairs.count)
    }

    /// (share of `total` names whose top confidence ≥ threshold, top-1 precision among them; 1 when none).
    static func covered(_ top: [(Double, Bool)], total: Int, threshold: Double?) -> (Double, Double) {
        guard let threshold, total > 0 else { return (0, 1) }
        var n = 0, hits = 0
        for (confidence, correct) in top where confidence >= threshold {
            n += 1
            if correct { hits += 1 }
        }
        return (Double(n) / Double(total), n == 0 ? 1 : Double(hits) / Double(n))
    }

    static func oracleCoverage(_ top: [(Double, Bool)], total: Int, precision: Double) -> Double {
        let curve = ModelCalibration.curve(top.map { (confidence: $0.0, correct: $0.1) }, total: total)
        return curve.filter { $0.precision >= precision - 1e-12 }.map(\.coverage).max() ?? 0
    }

    static func interval(_ values: [Double]) -> Interval {
        guard !values.isEmpty else { return Interval(low: 0, high: 0) }
        let sorted = values.sorted()
        let low = sorted[Int((Double(sorted.count) * 0.025).rounded(.down))]
        let high = sorted[min(sorted.count - 1, Int((Double(sorted.count) * 0.975).rounded(.up)) - 1)]
        return Interval(low: low, high: high)
    }
}
