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

/// Corrupted lexicons either fail to load with a located error or load and tokenize without trapping.
final class LexiconCorruptionTests: XCTestCase {
    func testFlippedBytesNeverTrap() throws {
        let original = try ByteReader.readFile(Shipped.modelDirectory + "/lexicon.kwlex")
        var generator = SplitMix64(seed: 42)
        var loaded = 0
        for _ in 0 ..< 16 {
            var bytes = original
            for _ in 0 ..< 2 {
                let position = Int(generator.next() % UInt64(bytes.count))
                bytes[position] ^= UInt8(truncatingIfNeeded: generator.next() | 1)
            }
            let path = try temporaryFile(bytes, name: "lexicon.kwlex")
            do {
                let lexicon = try Lexicon.load(path: path)
                let pipeline = TextPipeline(lexicon: lexicon, stopPhrases: StopPhrases(phrases: ["送料無料"]))
                _ = pipeline.tokenize("【送料無料】淡路島産 カラーにんじん 3本 ﾆﾝｼﾞﾝ ゴールドラッシュ")
                _ = pipeline.tokenizeKeyword("豚バラ肉")
                loaded += 1
            } catch let error as TextFileError {
                XCTAssertTrue(error.description.hasPrefix(path), error.description)
            }
        }
        XCTAssertGreaterThan(loaded, 0, "some flips land in costs or the matrix and still load")
    }
}

/// A small deterministic generator for the corruption test.
struct SplitMix64 {
    var state: UInt64
    init(seed: UInt64) { state = seed }
    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}
