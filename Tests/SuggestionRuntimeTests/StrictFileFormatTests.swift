@testable import FileStore
import Foundation
@testable import ModelStorage
@testable import StoreInterface
import TrainingData
import XCTest

/// The service's JSON files go through the strict reader: a repeated key (which another reader would resolve by
/// keeping one of the two values), trailing data or a wrong type is an error naming the file and the line or
/// byte, and the shipped files read exactly as Foundation's decoder reads them.
final class StrictFileFormatTests: XCTestCase {
    private var directory = ""
    private let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "strict-files-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func write(_ text: String, _ name: String) throws -> String {
        let path = directory + "/" + name
        try Data(text.utf8).write(to: URL(fileURLWithPath: path))
        return path
    }

    private var shippedModel: String { root.appendingPathComponent("models/default").path }

    func testShippedManifestAndCalibrationReadAsFoundationReadsThem() throws {
        let manifestPath = shippedModel + "/manifest.json"
        let manifest = try ModelManifest.load(path: manifestPath)
        XCTAssertEqual(manifest, try JSONDecoder().decode(ModelManifest.self, from: Data(contentsOf: URL(fileURLWithPath: manifestPath))))
        XCTAssertNotNil(manifest.fileSHA256)
        let calibrationPath = shippedModel + "/" + ModelCalibration.fileName
        let calibration = try ModelCalibration.load(path: calibrationPath, encoderSHA256: nil)
        XCTAssertEqual(calibration,
                       try JSONDecoder().decode(ModelCalibration.self, from: Data(contentsOf: URL(fileURLWithPath: calibrationPath))))
    }

    func testManifestWithARepeatedKeyNamesFileLineAndByte() throws {
        let text = try String(contentsOfFile: shippedModel + "/manifest.json", encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: "\"model_version\""))
        let doubled = text.replacingCharacters(in: range, with: "\"model_version\" : \"other\",\n  \"model_version\"")
        let path = try write(doubled, "manifest.json")
        let line = doubled[..<range.lowerBound].filter { $0 == "\n" }.count + 2
        XCTAssertThrowsError(try ModelManifest.load(path: path)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("\(path):\(line): not a model manifest: the key 'model_version' appears twice at byte "),
                          message)
        }
        _ = try write("{\"format_version\": 1, \"model_version\": \"v\", \"sources\": \"MODEL.md\"} {}", "trailing.json")
        XCTAssertThrowsError(try ModelManifest.load(path: directory + "/trailing.json")) { error in
            XCTAssertEqual("\(error)", directory + "/trailing.json:1: not a model manifest: unexpected data after the JSON value at byte 67")
        }
        _ = try write("{\"format_version\": \"1\", \"model_version\": \"v\", \"sources\": \"MODEL.md\"}", "wrong.json")
        XCTAssertThrowsError(try ModelManifest.load(path: directory + "/wrong.json")) { error in
            XCTAssertEqual("\(error)", directory + "/wrong.json: not a model manifest: 'format_version': expected an integer, found a string")
        }
    }

    func testCalibrationWithARepeatedKeyNamesFileLineAndByte() throws {
        let text = try String(contentsOfFile: shippedModel + "/" + ModelCalibration.fileName, encoding: .utf8)
        let range = try XCTUnwrap(text.range(of: "\"bias\""))
        let doubled = text.replacingCharacters(in: range, with: "\"bias\" : 0,\n  \"bias\"")
        let path = try write(doubled, ModelCalibration.fileName)
        let line = doubled[..<range.lowerBound].filter { $0 == "\n" }.count + 2
        XCTAssertThrowsError(try ModelCalibration.load(path: path, encoderSHA256: nil)) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix("\(path):\(line): not a calibration file: the key 'bias' appears twice at byte "), message)
        }
    }

    func testTrainingLineWithARepeatedKeyNamesFileLineAndByte() throws {
        let path = try write("""
            {"name": "にんじん 3本", "keywords": ["にんじん"]}
            {"name": "豚バラ", "keywords": ["豚バラ肉"], "keywords": ["牛肉"]}

            """, "train.jsonl")
        XCTAssertThrowsError(try LabelledData.load(path: path)) { error in
            XCTAssertEqual("\(error)", "\(path):2: not valid JSON: the key 'keywords' appears twice at byte 64")
        }
        let trailing = try write("{\"name\": \"a\", \"keywords\": [\"b\"]} x\n", "trailing.jsonl")
        XCTAssertThrowsError(try LabelledData.load(path: trailing)) { error in
            XCTAssertEqual("\(error)", "\(trailing):1: not valid JSON: unexpected data after the JSON value at byte 33")
        }
        let source = try write("{\"name\": \"a\", \"keywords\": [\"b\"], \"source\": 3}\n", "source.jsonl")
        XCTAssertThrowsError(try LabelledData.load(path: source)) { error in
            XCTAssertEqual("\(error)", "\(source):1: 'source' must be a string")
        }
    }

    func testShippedLabelledDataLoads() throws {
        for name in ["train.jsonl", "dev.jsonl", "dev-unseen.jsonl"] {
            let path = root.appendingPathComponent("data/" + name).path
            let names = try LabelledData.load(path: path)
            let lines = try String(contentsOfFile: path, encoding: .utf8).split(separator: "\n").count
            XCTAssertEqual(names.count, lines, name)
        }
    }

    func testFeedbackLineWithARepeatedKeyNamesFileAndLine() throws {
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        _ = try store.appendFeedback([FeedbackItem(name: "n", keyword: "a", action: .accept)])
        let handle = try XCTUnwrap(FileHandle(forWritingAtPath: store.feedbackPath))
        handle.seekToEndOfFile()
        handle.write(Data(#"{"action":"accept","id":2,"keyword":"a","keyword":"b","name":"n","received_at":"2026-01-02T03:04:05.000Z","shown":[]}"#.utf8 + [0x0A]))
        handle.closeFile()
        XCTAssertThrowsError(try FileKeywordStore(overlayPath: directory + "/keywords.overlay.json").feedback(after: 0, limit: 10)) { error in
            XCTAssertEqual("\(error)", store.feedbackPath + ":2: not valid JSON: the key 'keyword' appears twice at byte 50")
        }
    }

    func testFeedbackLinesAreWrittenAsBeforeAndReadBack() throws {
        let record = FeedbackRecord(id: 7, receivedAt: "2026-01-02T03:04:05.000Z",
                                    item: FeedbackItem(name: "新物 \"にんじん\"\n/\\", keyword: "にんじん", action: .reject,
                                                       shown: ["にんじん", "人参"], model: "m-1", annotator: "aiko", clientID: "c-1"))
        let bytes = FeedbackLine.encode(record)
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        let foundation = try encoder.encode(FoundationLine(record))
        XCTAssertEqual(String(decoding: bytes, as: UTF8.self), String(decoding: foundation, as: UTF8.self) + "\n")
        XCTAssertEqual(try FeedbackLine.decode(bytes.dropLast()), record)
        let bare = FeedbackRecord(id: 8, receivedAt: "t", item: FeedbackItem(name: "n", keyword: "k", action: .accept))
        XCTAssertEqual(String(decoding: FeedbackLine.encode(bare), as: UTF8.self),
                       #"{"action":"accept","id":8,"keyword":"k","name":"n","received_at":"t","shown":[]}"# + "\n")
    }

    func testArchiveLineWithARepeatedKeyNamesSourceAndLine() throws {
        let store = FileKeywordStore(overlayPath: directory + "/keywords.overlay.json")
        let archive = """
            {"type":"keywords","added":["ごぼう"],"removed":[]}
            {"type":"feedback","id":3,"id":4,"received_at":"2026-01-02T03:04:05.000Z","name":"n","keyword":"k","action":"accept","shown":[]}

            """
        XCTAssertThrowsError(try StoreArchive.importArchive(Data(archive.utf8), source: "a.jsonl", into: store, base: [])) { error in
            XCTAssertEqual("\(error)", "a.jsonl:2: not valid JSON: the key 'id' appears twice at byte 31")
        }
        XCTAssertEqual(try store.loadOverlay(), KeywordOverlay(), "nothing is written when a line is bad")
        let doubledType = #"{"type":"keywords","added":[],"removed":[],"type":"feedback"}"#
        XCTAssertThrowsError(try StoreArchive.importArchive(Data(doubledType.utf8), source: "b.jsonl", into: store, base: [])) { error in
            XCTAssertTrue("\(error)".hasPrefix("b.jsonl:1: not valid JSON: the key 'type' appears twice"), "\(error)")
        }
        let wrongType = #"{"type":"feedback","id":"3","received_at":"t","name":"n","keyword":"k","action":"accept","shown":[]}"#
        XCTAssertThrowsError(try StoreArchive.importArchive(Data(wrongType.utf8), source: "c.jsonl", into: store, base: [])) { error in
            XCTAssertEqual("\(error)", "c.jsonl:1: not a feedback record: 'id': expected an integer, found a string")
        }
    }

    /// The line as Foundation's encoder wrote it, to compare bytes with.
    private struct FoundationLine: Encodable {
        var id: Int64
        var client_id: String?
        var received_at: String
        var name: String
        var keyword: String
        var action: String
        var shown: [String]
        var model: String?
        var annotator: String?

        init(_ record: FeedbackRecord) {
            id = record.id
            client_id = record.item.clientID
            received_at = record.receivedAt
            name = record.item.name
            keyword = record.item.keyword
            action = record.item.action.rawValue
            shown = record.item.shown
            model = record.item.model
            annotator = record.item.annotator
        }
    }
}
