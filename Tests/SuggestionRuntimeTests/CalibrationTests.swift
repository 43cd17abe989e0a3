import Foundation
import KeywordIndex
import KeywordModel
@testable import ModelStorage
@testable import StoreInterface
@testable import Training
import TrainingData
import XCTest

/// The confidence calibrator: fitting, the precision curve, the file and its checks, and the metrics.
final class CalibrationTests: XCTestCase {
    private var directory = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "calibration-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    /// Labels drawn from a known logistic model are fitted back to close to its weights.
    func testLogisticRegressionRecoversKnownWeights() {
        var generator = SeededGenerator(seed: 7)
        var x: [[Double]] = [], y: [Bool] = []
        for _ in 0..<4000 {
            let a = Double(generator.next() % 10_000) / 10_000 * 4 - 2
            let b = Double(generator.next() % 10_000) / 10_000 * 4 - 2
            let p = 1 / (1 + exp(-(1.5 * a - 2 * b + 0.5)))
            x.append([a, b, 3])   // a constant feature gets scale 1 and must not break the fit
            y.append(Double(generator.next() % 10_000) / 10_000 < p)
        }
        let model = LogisticRegression.fit(x, y, l2: 0.01)
        XCTAssertEqual(model.weights[0] / model.scale[0], 1.5, accuracy: 0.2)
        XCTAssertEqual(model.weights[1] / model.scale[1], -2, accuracy: 0.2)
        XCTAssertEqual(model.probability([0, 0, 3]), 1 / (1 + exp(-0.5)), accuracy: 0.05)
    }

    func testCurveAndThresholds() {
        // Confidences 0.9 (right), 0.8 (right), 0.7 (wrong), 0.6 (right) over 5 names (one without a suggestion).
        let curve = ModelCalibration.curve([(0.6, true), (0.9, true), (0.7, false), (0.8, true)], total: 5)
        XCTAssertEqual(curve.map(\.threshold), [0.9, 0.8, 0.7, 0.6])
        XCTAssertEqual(curve.map(\.precision), [1, 1, 2.0 / 3, 0.75])
        XCTAssertEqual(curve.map(\.coverage), [0.2, 0.4, 0.6, 0.8])
        let calibration = ModelCalibration(encoderSHA256: "x", mean: [], scale: [], weights: [], bias: 0,
                                           fittedOn: .init(data: "d", names: 5, depth: 1, suggestions: 4, accuracyAt1: 0.6),
                                           curve: curve, rule: .pointEstimate)
        XCTAssertEqual(calibration.threshold(forPrecision: 0.99), 0.8, "the largest coverage that reaches the precision")
        XCTAssertEqual(calibration.threshold(forPrecision: 0.7), 0.6)
        XCTAssertEqual(calibration.thresholds["0.95"], 0.8)
        XCTAssertNil(ModelCalibration.curve([(0.5, false)], total: 1).first { $0.precision > 0 })
        // Two names above 0.8, both right: precision 1, but its lower bound is 2 / (2 + z²) = 0.425.
        XCTAssertEqual(curve[1].precisionLower95 ?? 0, 2 / (2 + 1.6448536269514722 * 1.6448536269514722), accuracy: 1e-12)
        var bounded = calibration
        bounded.thresholdRule = .wilsonLower95
        XCTAssertNil(bounded.threshold(forPrecision: 0.5), "four names cannot show 50 % with 95 % confidence")
        XCTAssertEqual(bounded.threshold(forPrecision: 0.4), 0.8, "bounds 0.270, 0.425, 0.254, 0.356")
        XCTAssertEqual(bounded.threshold(forPrecision: 0.3), 0.6)
    }

    /// The one-sided 95 % Wilson lower bound against values computed by hand (z = 1.6449), and the rule it
    /// gives: the lowest threshold whose bound clears the target, which needs more names than the point
    /// estimate does.
    func testWilsonLowerBoundAndTheThresholdItGives() {
        XCTAssertEqual(ModelCalibration.wilsonLower95(correct: 0, count: 0), 0)
        XCTAssertEqual(ModelCalibration.wilsonLower95(correct: 10, count: 10), 10 / (10 + 2.705543454095413), accuracy: 1e-12)
        // 95 of 100: (0.95 + z²/200 − z·√(0.95·0.05/100 + z²/40000)) / (1 + z²/100) = 0.90084…
        XCTAssertEqual(ModelCalibration.wilsonLower95(correct: 95, count: 100), 0.90084, accuracy: 1e-5)
        XCTAssertLessThan(ModelCalibration.wilsonLower95(correct: 980, count: 1000), 0.98)
        XCTAssertGreaterThan(ModelCalibration.wilsonLower95(correct: 998, count: 1000), 0.99)
        // 400 names at confidence 0.99 with 1 wrong, then 400 at 0.9 with 20 wrong: the point estimate at 0.9 is
        // 0.974, the bound 0.963; at 0.99 the point estimate is 0.9975 and the bound 0.989.
        var top: [(confidence: Double, correct: Bool)] = []
        for i in 0..<400 { top.append((0.99, i != 0)) }
        for i in 0..<400 { top.append((0.9, i >= 20)) }
        let curve = ModelCalibration.curve(top, total: 800)
        func fitted(_ rule: ThresholdRule) -> ModelCalibration {
            ModelCalibration(encoderSHA256: "x", mean: [], scale: [], weights: [], bias: 0,
                             fittedOn: .init(data: "d", names: 800, depth: 1, suggestions: 800, accuracyAt1: 0.974),
                             curve: curve, rule: rule)
        }
        XCTAssertEqual(fitted(.pointEstimate).threshold(forPrecision: 0.97), 0.9)
        XCTAssertEqual(fitted(.wilsonLower95).threshold(forPrecision: 0.97), 0.99)
        XCTAssertEqual(fitted(.wilsonLower95).thresholds["0.98"], 0.99)
        XCTAssertNil(fitted(.wilsonLower95).threshold(forPrecision: 0.99))
        // serve warns exactly when auto-accept can never be true, naming the best bound the curve has.
        XCTAssertNil(fitted(.wilsonLower95).unreachedPrecisionWarning(0.98))
        let warning = fitted(.wilsonLower95).unreachedPrecisionWarning(0.99)
        XCTAssertTrue(warning?.contains("precision 0.99") == true && warning?.contains("best 0.989") == true,
                      warning ?? "no warning")
        XCTAssertNil(fitted(.pointEstimate).unreachedPrecisionWarning(0.99))
    }

    func testECEAndBrierOnAKnownExample() {
        // Bin 0.9-1.0: confidences 0.95, 0.95, accuracy 1/2 → |0.5 - 0.95| = 0.45 over 2 of 4 names;
        // bin 0.1-0.2: confidences 0.15, 0.15, accuracy 0 → 0.15 over 2 of 4. ECE = 0.5·0.45 + 0.5·0.15 = 0.3.
        let pairs: [(Double, Bool)] = [(0.95, true), (0.95, false), (0.15, false), (0.15, false)]
        XCTAssertEqual(CalibrationMetrics.ece(pairs), 0.3, accuracy: 1e-12)
        XCTAssertEqual(CalibrationMetrics.brier(pairs), (0.0025 + 0.9025 + 0.0225 + 0.0225) / 4, accuracy: 1e-12)
        let (coverage, precision) = CalibrationMetrics.covered(pairs, total: 5, threshold: 0.9)
        XCTAssertEqual(coverage, 0.4)
        XCTAssertEqual(precision, 0.5)
    }

    /// A model directory's calibration.json loads only for the encoder it was fitted for, and only when
    /// it says what it holds.
    func testCalibrationFileIsCheckedWhenLoaded() throws {
        let n = ConfidenceFeatures.names.count
        let calibration = ModelCalibration(encoderSHA256: "abc", mean: Array(repeating: 0, count: n),
                                           scale: Array(repeating: 1, count: n), weights: Array(repeating: 0.1, count: n),
                                           bias: -1, fittedOn: .init(data: "d", names: 1, depth: 1, suggestions: 1, accuracyAt1: 1),
                                           curve: [.init(threshold: 0.5, precision: 1, coverage: 1, precisionLower95: 0.27)])
        let path = directory + "/calibration.json"
        try calibration.save(path: path)
        XCTAssertEqual(try ModelCalibration.load(path: path, encoderSHA256: "abc"), calibration)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "def")) { error in
            XCTAssertTrue("\(error)".hasPrefix(path + ": fitted for encoder.bin abc"), "\(error)")
        }
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"format_version\" : 2", with: "\"format_version\" : 9")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "abc")) { error in
            XCTAssertEqual("\(error)", path + ": format_version 9 is not supported (this build reads 1 to 2)")
        }
        try "{\"format\": \"kwsuggest-calibration\"}".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: nil))
    }

    /// A version 1 file (no threshold_rule, no precision_lower_95: the format before the rule existed) still
    /// loads and reads its curve by the point estimate, as it was written; a version 2 file must name its rule.
    func testVersionOneFilesLoadWithThePointEstimateRule() throws {
        let n = ConfidenceFeatures.names.count
        let version1 = """
            {"format": "kwsuggest-calibration", "format_version": 1, "method": "logistic", "encoder_sha256": "abc",
             "features": [\(ConfidenceFeatures.names.map { "\"\($0)\"" }.joined(separator: ", "))],
             "mean": [\(Array(repeating: "0", count: n).joined(separator: ", "))],
             "scale": [\(Array(repeating: "1", count: n).joined(separator: ", "))],
             "weights": [\(Array(repeating: "0.1", count: n).joined(separator: ", "))], "bias": -1,
             "fitted_on": {"data": "d", "names": 4, "depth": 1, "suggestions": 4, "accuracy_at_1": 0.75},
             "thresholds": {"0.95": 0.8},
             "curve": [{"threshold": 0.9, "precision": 1, "coverage": 0.25}, {"threshold": 0.8, "precision": 1, "coverage": 0.5},
                       {"threshold": 0.7, "precision": 0.75, "coverage": 1}]}
            """
        let path = directory + "/calibration.json"
        try version1.write(toFile: path, atomically: true, encoding: .utf8)
        let loaded = try ModelCalibration.load(path: path, encoderSHA256: "abc")
        XCTAssertEqual(loaded.formatVersion, 1)
        XCTAssertEqual(loaded.rule, .pointEstimate)
        XCTAssertEqual(loaded.threshold(forPrecision: 0.98), 0.8)
        XCTAssertEqual(loaded.threshold(forPrecision: 0.7), 0.7)
        let unnamed = version1.replacingOccurrences(of: "\"format_version\": 1", with: "\"format_version\": 2")
        try unnamed.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "abc")) { error in
            XCTAssertEqual("\(error)", path + ": threshold_rule is missing")
        }
        let noBounds = unnamed.replacingOccurrences(of: "\"method\"", with: "\"threshold_rule\": \"wilson-lower-95\", \"method\"")
        try noBounds.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "abc")) { error in
            XCTAssertEqual("\(error)", path + ": threshold_rule wilson-lower-95 needs precision_lower_95 at every curve point")
        }
    }

    func testCalibrationSplitIsAFixedHashedFraction() {
        let names = (0..<2000).map { LabelledName(name: "商品 \($0)", keywords: ["k\($0 % 50)"]) }
        let split = CalibrationSplit(fraction: 0.1)
        let (training, held) = split.split(names)
        XCTAssertEqual(training.count + held.count, 2000)
        XCTAssertEqual(Double(held.count) / 2000, 0.1, accuracy: 0.03)
        XCTAssertEqual(split.split(names).calibration, held, "the same names every time")
        let byKeyword = CalibrationSplit(fraction: 0.2, key: .keyword).split(names).calibration
        let heldKeywords = Set(byKeyword.map { $0.keywords[0] })
        XCTAssertTrue(names.filter { heldKeywords.contains($0.keywords[0]) }.count == byKeyword.count,
                      "keyword split holds out every name of a held-out keyword")
        XCTAssertTrue(CalibrationSplit(fraction: 0).split(names).calibration.isEmpty)
    }
}

/// A calibrator fitted before the phrase-head feature still loads and reads the features it was fitted on.
final class CalibrationFeatureSetTests: XCTestCase {
    func testTheLegacyFeatureSetIsReadableAndOthersAreNot() {
        XCTAssertTrue(ConfidenceFeatures.isReadable(ConfidenceFeatures.names))
        XCTAssertTrue(ConfidenceFeatures.isReadable(Array(ConfidenceFeatures.names.prefix(ConfidenceFeatures.legacyCount))))
        XCTAssertFalse(ConfidenceFeatures.isReadable(Array(ConfidenceFeatures.names.prefix(ConfidenceFeatures.legacyCount - 1))))
        XCTAssertFalse(ConfidenceFeatures.isReadable(ConfidenceFeatures.names + ["unknown"]))
        XCTAssertEqual(ConfidenceFeatures.names.last, "text_ends_phrase")
    }

    /// The phrase-head feature is the vector's last entry, from the evidence the index found.
    func testTheVectorEndsWithThePhraseHead() {
        var evidence = [Float](repeating: 0, count: LexicalFeature.count)
        evidence[LexicalFeature.textEndsPhrase.rawValue] = 1
        let vector = ConfidenceFeatures.vector(scores: [2, 1], rank: 0, evidence: evidence)
        XCTAssertEqual(vector.count, ConfidenceFeatures.names.count)
        XCTAssertEqual(vector.last, 1)
    }
}

/// The calibrator the shipped model had before the phrase-head feature (its first 12 features, from the shipped
/// file) loads, and scores a 13-feature vector by those 12 alone.
final class LegacyCalibrationLoadTests: XCTestCase {
    func testATwelveFeatureCalibratorLoadsAndIgnoresTheThirteenth() throws {
        let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent().deletingLastPathComponent()
        let shipped = root.appendingPathComponent("models/default/calibration.json").path
        var object = try XCTUnwrap(try JSONSerialization.jsonObject(with: Data(contentsOf: URL(fileURLWithPath: shipped))) as? [String: Any])
        let legacy = ConfidenceFeatures.legacyCount
        for key in ["features", "mean", "scale", "weights"] {
            object[key] = Array(try XCTUnwrap(object[key] as? [Any]).prefix(legacy))
        }
        let path = NSTemporaryDirectory() + "legacy-calibration-\(UUID().uuidString).json"
        defer { try? FileManager.default.removeItem(atPath: path) }
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        let calibration = try ModelCalibration.load(path: path, encoderSHA256: nil)
        XCTAssertEqual(calibration.features.count, legacy)
        let features = (0..<ConfidenceFeatures.names.count).map { Double($0) / 10 }
        var head = features
        head[legacy] = 1 - head[legacy]
        XCTAssertEqual(calibration.confidence(features), calibration.confidence(head), "the 13th feature is not read")

        object["features"] = Array(ConfidenceFeatures.names.prefix(legacy - 1))
        try JSONSerialization.data(withJSONObject: object).write(to: URL(fileURLWithPath: path))
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: nil))
    }
}
