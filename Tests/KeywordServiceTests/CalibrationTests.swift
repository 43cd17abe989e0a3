import Foundation
import KeywordIndex
import KeywordModel
@testable import KeywordService
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
                                           curve: curve)
        XCTAssertEqual(calibration.threshold(forPrecision: 0.99), 0.8, "the largest coverage that reaches the precision")
        XCTAssertEqual(calibration.threshold(forPrecision: 0.7), 0.6)
        XCTAssertEqual(calibration.thresholds["0.95"], 0.8)
        XCTAssertNil(ModelCalibration.curve([(0.5, false)], total: 1).first { $0.precision > 0 })
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
                                           curve: [.init(threshold: 0.5, precision: 1, coverage: 1)])
        let path = directory + "/calibration.json"
        try calibration.save(path: path)
        XCTAssertEqual(try ModelCalibration.load(path: path, encoderSHA256: "abc"), calibration)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "def")) { error in
            XCTAssertTrue("\(error)".hasPrefix(path + ": fitted for encoder.bin abc"), "\(error)")
        }
        var text = try String(contentsOfFile: path, encoding: .utf8)
        text = text.replacingOccurrences(of: "\"format_version\" : 1", with: "\"format_version\" : 9")
        try text.write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: "abc")) { error in
            XCTAssertEqual("\(error)", path + ": format_version 9 is not supported (this build reads 1)")
        }
        try "{\"format\": \"kwsuggest-calibration\"}".write(toFile: path, atomically: true, encoding: .utf8)
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: nil))
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
