import FileStore
import Foundation
import StoreInterface
import XCTest

final class KeywordOverlayFileTests: XCTestCase {
    private var directory: String = ""

    override func setUpWithError() throws {
        directory = NSTemporaryDirectory() + "overlay-tests-\(UUID().uuidString)"
        try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
    }

    override func tearDownWithError() throws {
        try? FileManager.default.removeItem(atPath: directory)
    }

    private func makeStore(_ name: String = "keywords.overlay.json") -> KeywordOverlayFile {
        KeywordOverlayFile(path: directory + "/" + name)
    }

    func testMissingFileIsEmptyOverlay() throws {
        let store = makeStore()
        XCTAssertEqual(try store.load(), KeywordOverlay(added: [], removed: []))
        XCTAssertNil(store.modificationTime())
    }

    func testSaveThenLoadRoundTrips() throws {
        let store = makeStore()
        let overlay = KeywordOverlay(added: ["にんじん", "ごぼう"], removed: ["豚肉"])
        try store.save(overlay)
        XCTAssertEqual(try store.load(), overlay)
        XCTAssertNotNil(store.modificationTime())
    }

    func testSaveLeavesNoTemporaryFiles() throws {
        let store = makeStore()
        try store.save(KeywordOverlay(added: ["a"], removed: []))
        try store.save(KeywordOverlay(added: ["b"], removed: []))
        let names = try FileManager.default.contentsOfDirectory(atPath: directory)
        XCTAssertEqual(names, ["keywords.overlay.json"])
    }

    func testCorruptFileNamesTheFile() throws {
        let store = makeStore()
        try Data("{\"added\": [1, 2".utf8).write(to: URL(fileURLWithPath: store.path))
        XCTAssertThrowsError(try store.load()) { error in
            XCTAssertTrue("\(error)".contains(store.path), "\(error)")
        }
    }

    func testWrongShapeNamesTheField() throws {
        let store = makeStore()
        try Data("{\"added\": \"x\", \"removed\": []}".utf8).write(to: URL(fileURLWithPath: store.path))
        XCTAssertThrowsError(try store.load()) { error in
            XCTAssertTrue("\(error)".contains("added"), "\(error)")
        }
    }

    /// A file edited by hand passes the API's keyword rules, or it is refused with the field and the reason.
    func testHandEditedOverlayFollowsTheAPIRules() throws {
        let store = makeStore()
        let cases: [(String, String)] = [
            (#"{"added": ["a\u0000b"], "removed": []}"#, "'added[0]' contains a control character"),
            (#"{"added": ["ok", "tab\there"], "removed": []}"#, "'added[1]' contains a control character"),
            (#"{"added": [""], "removed": []}"#, "'added[0]' is empty"),
            (#"{"added": [" padded "], "removed": []}"#, "'added[0]' has white space around it"),
            (#"{"added": ["\#(String(repeating: "あ", count: 101))"], "removed": []}"#, "'added[0]' is longer than 100"),
            (#"{"added": [], "removed": [], "comment": "x"}"#, "unknown field 'comment'"),
            (#"{"added": ["a"], "added": ["b"], "removed": []}"#, "not valid JSON"),
            (#"{"added": [1], "removed": []}"#, "'added[0]' is not a string"),
            (#"{"removed": []}"#, "missing field 'added'"),
            (#"{"added": ["\u200d\u200c"], "removed": []}"#, "'added[0]' contains the invisible format character U+200D"),
            (#"{"added": [], "removed": ["\u202eにんじん"]}"#, "'removed[0]' contains the invisible format character U+202E"),
            (#"{"added": ["にんじん\udb40\udc41"], "removed": []}"#, "contains the invisible format character U+E0041"),
            (#"{"added": ["\u0301\u0302"], "removed": []}"#, "'added[0]' has no visible character"),
            (#"{"added": ["a\uffff"], "removed": []}"#, "contains the noncharacter U+FFFF"),
            (#"{"added": ["a\ue000"], "removed": []}"#, "contains the private-use character U+E000"),
            (#"{"added": ["ｷﾞｮｳｻﾞ皮"], "removed": []}"#, "'added[0]' is a compatibility form of 'ギョウザ皮'"),
        ]
        for (text, expected) in cases {
            try Data(text.utf8).write(to: URL(fileURLWithPath: store.path))
            XCTAssertThrowsError(try store.load(), text) { error in
                XCTAssertTrue("\(error)".contains(expected), "\(text): \(error)")
                XCTAssertTrue("\(error)".contains(store.path), "\(error)")
            }
        }
        try Data(#"{"added": ["にんじん"], "removed": ["豚肉"]}"#.utf8).write(to: URL(fileURLWithPath: store.path))
        XCTAssertEqual(try store.load(), KeywordOverlay(added: ["にんじん"], removed: ["豚肉"]))
    }

    func testSaveIntoMissingDirectoryFails() {
        let store = KeywordOverlayFile(path: directory + "/missing/keywords.overlay.json")
        XCTAssertThrowsError(try store.save(KeywordOverlay()))
    }

    func testModificationTimeChangesOnSave() throws {
        let store = makeStore()
        try store.save(KeywordOverlay(added: ["a"], removed: []))
        // Dates the file back a day, so the next save shows however coarse the file system's clock is.
        let dayAgo = Date(timeIntervalSinceNow: -86_400)
        try FileManager.default.setAttributes([.modificationDate: dayAgo], ofItemAtPath: store.path)
        let first = try XCTUnwrap(store.modificationTime())
        XCTAssertEqual(Double(first.sec), dayAgo.timeIntervalSince1970, accuracy: 1)
        try store.save(KeywordOverlay(added: ["b"], removed: []))
        let second = try XCTUnwrap(store.modificationTime())
        XCTAssertGreaterThan(second.sec, first.sec)
    }

    func testApplyingLaterChangeWins() {
        let overlay = KeywordOverlay(added: ["a"], removed: ["b"])
            .applying(add: ["b", "c", "c"], remove: ["a"])
        XCTAssertEqual(overlay, KeywordOverlay(added: ["b", "c"], removed: ["a"]))
        // A keyword both added and removed in one change ends removed, at the end of `removed`.
        XCTAssertEqual(KeywordOverlay(added: ["a"], removed: ["x", "y"]).applying(add: ["x", "d"], remove: ["x", "y", "a"]),
                       KeywordOverlay(added: ["d"], removed: ["y", "x", "a"]))
    }

    func testDefaultPathSitsBesideModel() {
        XCTAssertEqual(KeywordOverlayFile.defaultPath(modelDirectory: "models/default"),
                       "models/default/keywords.overlay.json")
    }

    func testSaveRemovesOnlyStaleTemporaryFiles() throws {
        let store = makeStore()
        let stale = directory + "/.keywords.overlay.json.123.456.tmp"
        let fresh = directory + "/.keywords.overlay.json.789.12.tmp"
        XCTAssertTrue(FileManager.default.createFile(atPath: stale, contents: Data("{".utf8)))
        XCTAssertTrue(FileManager.default.createFile(atPath: fresh, contents: Data("{".utf8)))
        try FileManager.default.setAttributes([.modificationDate: Date().addingTimeInterval(-3600)], ofItemAtPath: stale)
        try store.save(KeywordOverlay(added: ["a"], removed: []))
        XCTAssertFalse(FileManager.default.fileExists(atPath: stale))
        XCTAssertTrue(FileManager.default.fileExists(atPath: fresh))
    }
}
