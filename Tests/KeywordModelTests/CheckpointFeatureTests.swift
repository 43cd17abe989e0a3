import Foundation
import KeywordModel
import XCTest

/// Evidence weights are stored with their feature names and mapped by name when loaded.
final class CheckpointFeatureTests: XCTestCase {
    private var directory: URL!

    override func setUpWithError() throws {
        directory = FileManager.default.temporaryDirectory.appendingPathComponent("kw-features-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    }

    override func tearDown() {
        try? FileManager.default.removeItem(at: directory)
    }

    /// Weights with feature f set to f + 1, so each weight says which feature it belongs to.
    private func labelledWeights() -> ModelWeights {
        var weights = ModelWeights(config: ModelConfig(inputDimension: 8, hiddenDimension: 6), seed: 3)
        for feature in LexicalFeature.allCases {
            weights.values[weights.layout.features + feature.rawValue] = Double(feature.rawValue + 1)
        }
        return weights
    }

    /// Rewrites encoder.json's `features` list (nil removes it) and its feature count.
    private func rewriteHeader(features: [String]?, featureWeights: [Double]? = nil) throws {
        let headerURL = directory.appendingPathComponent(Checkpoint.headerName)
        var header = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: headerURL)) as? [String: Any])
        header["features"] = features
        if let featureWeights {
            var config = try XCTUnwrap(header["config"] as? [String: Any])
            let oldCount = try XCTUnwrap(config["featureCount"] as? Int)
            config["featureCount"] = featureWeights.count
            header["config"] = config
            header["parameterCount"] = (header["parameterCount"] as? Int ?? 0) - oldCount + featureWeights.count
            let binURL = directory.appendingPathComponent(Checkpoint.valuesName)
            var data = try Data(contentsOf: binURL)
            data.removeLast(oldCount * 4)
            for weight in featureWeights {
                var bits = Float(weight).bitPattern.littleEndian
                withUnsafeBytes(of: &bits) { data.append(contentsOf: $0) }
            }
            try data.write(to: binURL)
        }
        try JSONSerialization.data(withJSONObject: header).write(to: headerURL)
    }

    func testSavedHeaderNamesEveryFeatureInOrder() throws {
        try Checkpoint.save(labelledWeights(), directory: directory.path)
        let header = try JSONSerialization.jsonObject(with: Data(contentsOf: directory.appendingPathComponent(Checkpoint.headerName)))
        XCTAssertEqual((header as? [String: Any])?["features"] as? [String], LexicalFeature.allCases.map(\.name))
    }

    func testWeightsAreMappedByNameNotPosition() throws {
        try Checkpoint.save(labelledWeights(), directory: directory.path)
        // The same weights, stored in reverse feature order with the names saying so.
        let reversed = LexicalFeature.allCases.reversed()
        try rewriteHeader(features: reversed.map(\.name), featureWeights: reversed.map { Double($0.rawValue + 1) })
        let loaded = try Checkpoint.load(directory: directory.path)
        XCTAssertEqual(loaded.featureWeights, LexicalFeature.allCases.map { Double($0.rawValue + 1) })
    }

    func testAFileWithoutNamesLoadsInTheLegacyOrder() throws {
        try Checkpoint.save(labelledWeights(), directory: directory.path)
        let legacy = LexicalFeature.legacyOrder
        try rewriteHeader(features: nil, featureWeights: legacy.indices.map { Double($0 + 100) })
        let loaded = try Checkpoint.load(directory: directory.path)
        for (position, name) in legacy.enumerated() {
            let feature = try XCTUnwrap(LexicalFeature(name: name))
            XCTAssertEqual(loaded.featureWeights[feature.rawValue], Double(position + 100), name)
        }
    }

    func testAMissingFeatureGetsWeightZeroAndANote() throws {
        try Checkpoint.save(labelledWeights(), directory: directory.path)
        let kept = LexicalFeature.allCases.filter { $0 != .maximal }
        try rewriteHeader(features: kept.map(\.name), featureWeights: kept.map { Double($0.rawValue + 1) })
        var notes: [String] = []
        let loaded = try Checkpoint.load(directory: directory.path) { notes.append($0) }
        XCTAssertEqual(loaded.featureWeights[LexicalFeature.maximal.rawValue], 0)
        XCTAssertEqual(loaded.featureWeights[LexicalFeature.text.rawValue], Double(LexicalFeature.text.rawValue + 1))
        XCTAssertEqual(notes.count, 1)
        XCTAssertTrue(notes.first?.contains("'maximal'") == true, "\(notes)")
    }

    func testAnUnknownFeatureIsAClearError() throws {
        try Checkpoint.save(labelledWeights(), directory: directory.path)
        var names = LexicalFeature.allCases.map(\.name)
        names[2] = "fromTheFuture"
        try rewriteHeader(features: names)
        XCTAssertThrowsError(try Checkpoint.load(directory: directory.path)) { error in
            XCTAssertTrue("\(error)".contains("unknown evidence feature 'fromTheFuture'"), "\(error)")
            XCTAssertTrue("\(error)".contains(Checkpoint.headerName), "\(error)")
        }
    }

    /// encoder.json is read strictly: a repeated key is an error naming the file, the line and the byte, and the
    /// file the trainer writes reads back to the same weights.
    func testARepeatedKeyInTheHeaderIsAClearError() throws {
        let weights = labelledWeights()
        try Checkpoint.save(weights, directory: directory.path)
        XCTAssertEqual(try Checkpoint.load(directory: directory.path).values, weights.values.map { Double(Float($0)) })
        let headerURL = directory.appendingPathComponent(Checkpoint.headerName)
        let text = try String(contentsOf: headerURL, encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: "\"parameterCount\""))
        let doubled = text.replacingCharacters(in: range, with: "\"parameterCount\" : 1,\n  \"parameterCount\"")
        try doubled.write(to: headerURL, atomically: true, encoding: .utf8)
        let line = doubled[..<range.lowerBound].filter { $0 == "\n" }.count + 2
        XCTAssertThrowsError(try Checkpoint.load(directory: directory.path)) { error in
            XCTAssertTrue("\(error)".hasPrefix("\(headerURL.path):\(line): not an encoder header: the key 'parameterCount' appears twice at byte "),
                          "\(error)")
        }
    }
}
