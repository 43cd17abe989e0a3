import XCTest
@testable import KeywordText

/// Bad lexicon files fail with the file name and a byte offset, never a crash.
final class LexiconFileTests: XCTestCase {
    var shippedBytes: [UInt8] {
        get throws { try ByteReader.readFile(Shipped.modelDirectory + "/lexicon.kwlex") }
    }

    func assertError(_ bytes: [UInt8], contains text: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let path = try temporaryFile(bytes, name: "lexicon.kwlex")
        XCTAssertThrowsError(try Lexicon.load(path: path), file: file, line: line) { error in
            let message = "\(error)"
            XCTAssertTrue(message.hasPrefix(path), message, file: file, line: line)
            XCTAssertTrue(message.contains(text), message, file: file, line: line)
        }
    }

    func testMissingFile() {
        XCTAssertThrowsError(try Lexicon.load(path: "/nonexistent/lexicon.kwlex")) { error in
            XCTAssertEqual("\(error)", "/nonexistent/lexicon.kwlex: no such file")
        }
    }

    func testEmptyFile() throws {
        try assertError([], contains: "at byte offset 0: empty file")
    }

    func testBadMagic() throws {
        var bytes = try shippedBytes
        bytes[0] = UInt8(ascii: "X")
        try assertError(bytes, contains: "at byte offset 0: bad magic")
    }

    func testUnsupportedVersion() throws {
        var bytes = try shippedBytes
        bytes[8] = 9
        try assertError(bytes, contains: "at byte offset 8: unsupported lexicon version 9")
    }

    func testTruncated() throws {
        let bytes = try shippedBytes
        try assertError(Array(bytes.prefix(bytes.count / 2)), contains: "file is truncated")
        try assertError(Array(bytes.prefix(30)), contains: "file is truncated")
    }

    func testTrailingBytes() throws {
        try assertError(try shippedBytes + [0, 0, 0], contains: "3 unexpected bytes after the last section")
    }

    func testShippedLexiconLoads() throws {
        let lexicon = Shipped.pipeline.lexicon
        XCTAssertGreaterThan(lexicon.keyCount, 100_000)
        XCTAssertGreaterThan(lexicon.entryCount, lexicon.keyCount / 2)
        XCTAssertFalse(lexicon.unknownWords.isEmpty)
    }

    func testMissingModelDirectoryNamesTheFile() {
        XCTAssertThrowsError(try TextPipeline.load(directory: "/nonexistent-model")) { error in
            XCTAssertEqual("\(error)", "/nonexistent-model/lexicon.kwlex: no such file")
        }
    }
}
