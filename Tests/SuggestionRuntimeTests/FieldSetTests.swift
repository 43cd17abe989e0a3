import Foundation
import TrainingData
import XCTest

/// The field set (`data/field/*.jsonl`) holds product names from public sources that the project did not write.
/// It is only ever measured on, so none of its names may reach training: no name of it occurs in a training
/// file or a source file, compared after NFKC with the spaces folded, as a loader would see them. Every line
/// names its source and labels keywords of the shipped list.
final class FieldSetTests: XCTestCase {
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    private func files(in folder: String, prefix: String = "") throws -> [String] {
        let directory = root.appendingPathComponent(folder).path
        return try FileManager.default.contentsOfDirectory(atPath: directory)
            .filter { $0.hasPrefix(prefix) && $0.hasSuffix(".jsonl") }.sorted().map { directory + "/" + $0 }
    }

    private func folded(_ name: String) -> String {
        name.precomposedStringWithCompatibilityMapping.split(whereSeparator: \.isWhitespace).joined(separator: " ")
    }

    func testFieldSetIsLabelledAgainstTheShippedList() throws {
        let keywords = Set(try String(contentsOf: root.appendingPathComponent("models/default/keywords.txt"), encoding: .utf8)
            .split(separator: "\n").map(String.init))
        var count = 0
        for path in try files(in: "data/field") {
            for item in try LabelledData.load(path: path) {
                count += 1
                XCTAssertFalse(item.source.isEmpty, "\(path):\(item.line): no source")
                XCTAssertFalse(item.keywords.isEmpty, "\(path):\(item.line): no keyword")
                for keyword in item.keywords {
                    XCTAssertTrue(keywords.contains(keyword), "\(path):\(item.line): \(keyword) is not in keywords.txt")
                }
            }
        }
        XCTAssertGreaterThanOrEqual(count, 300, "the field set holds at least 300 names")
    }

    func testNoFieldNameIsInATrainingOrSourceFile() throws {
        var field: [String: String] = [:]
        for path in try files(in: "data/field") {
            for item in try LabelledData.load(path: path) {
                field[folded(item.name)] = "\(path):\(item.line)"
            }
        }
        XCTAssertFalse(field.isEmpty)
        let training = try files(in: "data", prefix: "train") + files(in: "data/sources")
        XCTAssertFalse(training.isEmpty)
        for path in training {
            for item in try LabelledData.load(path: path) {
                if let origin = field[folded(item.name)] {
                    XCTFail("\(origin): the field name \(item.name) is also at \(path):\(item.line)")
                }
            }
        }
    }
}
