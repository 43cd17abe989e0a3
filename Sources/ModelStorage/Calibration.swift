// Confidence: the calibrated probability that a suggestion is an acceptable keyword for the name, and the
// file (`calibration.json`) that holds the calibrator next to the encoder it was fitted for.
import Foundation
import KeywordModel
import Platform

/// What the calibrator sees of one ranked suggestion: its score, the margins to its neighbours, its rank, the
/// exact-match evidence that went into its score, and whether its text match is the head of a phrase of the name
/// (the product kind) or only describes it.
public enum ConfidenceFeatures {
    /// The feature names, in order; a `calibration.json` lists these, or the first `legacyCount` of them (a
    /// calibrator fitted before the phrase-head feature existed, which reads only those).
    public static let names = [
        "score", "margin_next", "gap_top", "first", "log_rank",
        "rows", "text", "maximal", "variety", "text_whole_tokens", "text_inside_variety", "shared_rows_only",
        "text_ends_phrase",
    ]
    /// The features of calibrators fitted before the phrase-head feature.
    public static let legacyCount = 12

    /// Whether a calibrator listing `features` can be read by this build.
    public static func isReadable(_ features: [String]) -> Bool {
        features == names || features == Array(names.prefix(legacyCount))
    }

    static let evidence: [LexicalFeature] = [.rows, .text, .maximal, .variety, .textWholeTokens, .textInsideVariety,
                                             .sharedRowsOnly, .textEndsPhrase]

    /// The features of the suggestion at 0-based `rank` among `scores` (best first). The margin to the next
    /// keyword needs `scores[rank + 1]`; without it (the list is that short) the margin is the score itself.
    /// `evidence` is indexed by `LexicalFeature`.
    public static func vector(scores: [Float], rank: Int, evidence values: [Float]) -> [Double] {
        let score = Double(scores[rank])
        let next = rank + 1 < scores.count ? Double(scores[rank + 1]) : 0
        var vector = [score, score - next, Double(scores[0]) - score, rank == 0 ? 1 : 0, log(Double(rank + 1))]
        for feature in evidence {
            vector.append(feature.rawValue < values.count ? Double(values[feature.rawValue]) : 0)
        }
        return vector
    }
}

/// How a threshold is read off the precision curve for a target top-1 precision.
public enum ThresholdRule: String, Codable, Sendable, CaseIterable {
    /// The smallest threshold whose precision on the fit names reaches the target (format version 1). On a
    /// few hundred names above the threshold this overstates the precision on other names: one wrong name
    /// more or less moves it by a fraction of a point.
    case pointEstimate = "point-estimate"
    /// The smallest threshold whose one-sided 95 % Wilson lower bound of precision on the fit names reaches
    /// the target: the target holds on names like them with 95 % confidence, not only on the names themselves.
    case wilsonLower95 = "wilson-lower-95"
}

/// A fitted calibrator: logistic regression over standardised `ConfidenceFeatures`, with the precision →
/// threshold curve of the top suggestion on the data it was fitted on. Saved as `calibration.json`.
public struct ModelCalibration: Codable, Sendable, Equatable {
    public static let fileName = "calibration.json"
    public static let formatName = "kwsuggest-calibration"
    /// 2 adds `threshold_rule` and each curve point's `precision_lower_95`; version 1 files (neither field)
    /// still load and keep their rule, `point-estimate`.
    public static let currentVersion = 2
    public static let supportedVersions = 1...2
    /// The rule new fits use.
    public static let defaultRule = ThresholdRule.wilsonLower95
    /// z of a one-sided 95 % bound.
    static let zOneSided95 = 1.6448536269514722
    /// The top-1 precision the auto-accept threshold is chosen for unless told otherwise.
    public static let defaultPrecision = 0.98
    /// The precisions whose thresholds the file lists for reading by eye (the curve holds every one).
    public static let reportedPrecisions = [0.95, 0.98, 0.99]

    /// One point of the curve: suggesting the top keyword only when its confidence is ≥ `threshold` covers
    /// `coverage` of the names with top-1 precision `precision`, whose one-sided 95 % Wilson lower bound over
    /// the names covered is `precisionLower95` (absent in version 1 files).
    public struct CurvePoint: Codable, Sendable, Equatable {
        public var threshold: Double
        public var precision: Double
        public var coverage: Double
        public var precisionLower95: Double?
        enum CodingKeys: String, CodingKey {
            case threshold, precision, coverage
            case precisionLower95 = "precision_lower_95"
        }
        public init(threshold: Double, precision: Double, coverage: Double, precisionLower95: Double? = nil) {
            self.threshold = threshold
            self.precision = precision
            self.coverage = coverage
            self.precisionLower95 = precisionLower95
        }
    }

    /// Where the calibrator was fitted.
    public struct FitSummary: Codable, Sendable, Equatable {
        /// What the names are, e.g. "calibration split of train.jsonl: FNV-1a of the name, fraction 0.1".
        public var data: String
        public var names: Int
        /// Suggestions per name the logistic model was fitted on (ranks 1…depth).
        public var depth: Int
        public var suggestions: Int
        /// Top-1 accuracy on those names (for comparison with the curve).
        public var accuracyAt1: Double
        enum CodingKeys: String, CodingKey {
            case data, names, depth, suggestions
            case accuracyAt1 = "accuracy_at_1"
        }
        public init(data: String, names: Int, depth: Int, suggestions: Int, accuracyAt1: Double) {
            self.data = data
            self.names = names
            self.depth = depth
            self.suggestions = suggestions
            self.accuracyAt1 = accuracyAt1
        }
    }

    public var format: String
    public var formatVersion: Int
    public var method: String
    /// How `thresholds` and `threshold(forPrecision:)` read the curve; absent (version 1) means point-estimate.
    public var thresholdRule: ThresholdRule?
    /// SHA-256 of the `encoder.bin` this calibrator was fitted for; loading refuses any other encoder.
    public var encoderSHA256: String
    /// `ConfidenceFeatures.names`, as fitted.
    public var features: [String]
    public var mean: [Double]
    public var scale: [Double]
    public var weights: [Double]
    public var bias: Double
    public var fittedOn: FitSummary
    /// Precision → threshold, by eye: the threshold `rule` gives for each of `reportedPrecisions` it reaches.
    public var thresholds: [String: Double]
    /// Every distinct top-1 confidence of the fit data, highest first.
    public var curve: [CurvePoint]

    enum CodingKeys: String, CodingKey {
        case format
        case formatVersion = "format_version"
        case method
        case thresholdRule = "threshold_rule"
        case encoderSHA256 = "encoder_sha256"
        case features, mean, scale, weights, bias
        case fittedOn = "fitted_on"
        case thresholds, curve
    }

    public init(encoderSHA256: String, mean: [Double], scale: [Double], weights: [Double], bias: Double,
                fittedOn: FitSummary, curve: [CurvePoint], rule: ThresholdRule = ModelCalibration.defaultRule) {
        format = Self.formatName
        formatVersion = Self.currentVersion
        method = "logistic"
        thresholdRule = rule
        self.encoderSHA256 = encoderSHA256
        features = ConfidenceFeatures.names
        self.mean = mean
        self.scale = scale
        self.weights = weights
        self.bias = bias
        self.fittedOn = fittedOn
        self.curve = curve
        thresholds = [:]
        for precision in Self.reportedPrecisions {
            if let threshold = threshold(forPrecision: precision) { thresholds[String(format: "%.2f", precision)] = threshold }
        }
    }

    /// The calibrated probability that the suggestion with these features is acceptable.
    /// - Complexity: O(features).
    public func confidence(_ features: [Double]) -> Double {
        LogisticModel(mean: mean, scale: scale, weights: weights, bias: bias).probability(features)
    }

    /// The rule this file's thresholds follow (version 1 files: point-estimate).
    public var rule: ThresholdRule { thresholdRule ?? .pointEstimate }

    /// The smallest confidence threshold (the largest coverage) at which the curve reaches `precision` by this
    /// file's rule: the precision on the fit names itself, or its one-sided 95 % lower bound; nil when no
    /// threshold does.
    public func threshold(forPrecision precision: Double) -> Double? {
        let rule = self.rule
        return curve.filter { point in
            let value = rule == .pointEstimate ? point.precision : (point.precisionLower95 ?? 0)
            return value >= precision - 1e-12
        }.min { $0.threshold < $1.threshold }?.threshold
    }

    /// Why `auto_accept` stays false at `precision`: no point of the curve reaches it by this file's rule.
    /// nil when a threshold exists.
    public func unreachedPrecisionWarning(_ precision: Double) -> String? {
        guard threshold(forPrecision: precision) == nil else { return nil }
        let rule = self.rule
        let best = curve.map { rule == .pointEstimate ? $0.precision : ($0.precisionLower95 ?? 0) }.max() ?? 0
        return "no auto-accept threshold reaches top-1 precision \(precision) on the calibration curve (best "
            + String(format: "%.3f", best) + "); auto_accept stays false. A lower --auto-accept-precision enables it."
    }

    /// The one-sided 95 % Wilson score lower bound of a proportion: `correct` of `count`. 0 for no names.
    /// - Complexity: O(1).
    public static func wilsonLower95(correct: Int, count: Int) -> Double {
        guard count > 0 else { return 0 }
        let n = Double(count), p = Double(correct) / n, z = zOneSided95
        let centre = p + z * z / (2 * n)
        let spread = z * (p * (1 - p) / n + z * z / (4 * n * n)).squareRoot()
        return max(0, (centre - spread) / (1 + z * z / n))
    }

    /// The curve of top-1 `(confidence, correct)` pairs over `total` names (names without a suggestion count as
    /// not covered): one point per distinct confidence, highest first, with the precision's lower bound.
    /// - Complexity: O(n log n).
    public static func curve(_ top: [(confidence: Double, correct: Bool)], total: Int) -> [CurvePoint] {
        let sorted = top.sorted { $0.confidence > $1.confidence }
        var points: [CurvePoint] = []
        var correct = 0
        for (i, item) in sorted.enumerated() {
            if item.correct { correct += 1 }
            if i + 1 < sorted.count && sorted[i + 1].confidence == item.confidence { continue }
            points.append(CurvePoint(threshold: item.confidence, precision: Double(correct) / Double(i + 1),
                                     coverage: Double(i + 1) / Double(max(total, 1)),
                                     precisionLower95: wilsonLower95(correct: correct, count: i + 1)))
        }
        return points
    }

    // MARK: File

    /// Reads and checks `calibration.json`: its format and version, the feature list this code computes, finite
    /// numbers, and the encoder it was fitted for (`encoderSHA256` must be that of the directory's `encoder.bin`).
    public static func load(path: String, encoderSHA256 expected: String?) throws -> ModelCalibration {
        guard let data = FileManager.default.contents(atPath: path) else {
            throw ModelDirectoryError(path: path, message: "cannot read the calibration")
        }
        let calibration = try ModelDirectoryError.decode(ModelCalibration.self, from: [UInt8](data), path: path,
                                                         what: "a calibration file")
        func fail(_ message: String) -> ModelDirectoryError { ModelDirectoryError(path: path, message: message) }
        guard calibration.format == formatName else { throw fail("format is '\(calibration.format)', expected '\(formatName)'") }
        guard supportedVersions.contains(calibration.formatVersion) else {
            throw fail("format_version \(calibration.formatVersion) is not supported (this build reads \(supportedVersions.lowerBound) to \(supportedVersions.upperBound))")
        }
        if calibration.formatVersion == 1 {
            guard calibration.thresholdRule == nil || calibration.thresholdRule == .pointEstimate else {
                throw fail("format_version 1 has no threshold_rule other than point-estimate")
            }
        } else {
            guard let rule = calibration.thresholdRule else { throw fail("threshold_rule is missing") }
            if rule == .wilsonLower95, calibration.curve.contains(where: { $0.precisionLower95 == nil }) {
                throw fail("threshold_rule \(rule.rawValue) needs precision_lower_95 at every curve point")
            }
        }
        guard calibration.method == "logistic" else { throw fail("unknown method '\(calibration.method)'") }
        guard ConfidenceFeatures.isReadable(calibration.features) else {
            throw fail("features \(calibration.features) differ from this build's \(ConfidenceFeatures.names); refit with `kwsuggest calibrate`")
        }
        let n = calibration.features.count
        guard calibration.mean.count == n, calibration.scale.count == n, calibration.weights.count == n else {
            throw fail("mean, scale and weights must each hold \(n) numbers")
        }
        let numbers = calibration.mean + calibration.scale + calibration.weights + [calibration.bias]
            + calibration.curve.flatMap { [$0.threshold, $0.precision, $0.coverage, $0.precisionLower95 ?? 0] }
        guard numbers.allSatisfy(\.isFinite), calibration.scale.allSatisfy({ $0 > 0 }) else {
            throw fail("holds a non-finite number or a non-positive scale")
        }
        if let expected, calibration.encoderSHA256 != expected {
            throw fail("fitted for encoder.bin \(calibration.encoderSHA256.prefix(12)), not for this directory's \(expected.prefix(12)); refit with `kwsuggest calibrate`")
        }
        return calibration
    }

    public func save(path: String) throws {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(0x0A)
        do {
            try data.write(to: URL(fileURLWithPath: path), options: .atomic)
        } catch {
            throw ModelDirectoryError(path: path, message: "cannot write the calibration (\(error.localizedDescription))")
        }
    }
}
