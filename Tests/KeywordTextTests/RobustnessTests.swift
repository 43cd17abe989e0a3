import XCTest
@testable import KeywordText

/// Odd input gives a sensible result and never traps.
final class RobustnessTests: XCTestCase {
    func testEmptyAndBlank() {
        XCTAssertEqual(Shipped.pipeline.tokenize(""), [])
        XCTAssertEqual(Shipped.pipeline.tokenize("   　 "), [])
        XCTAssertEqual(Shipped.pipeline.normalize("").text, "")
    }

    func testEmojiAndControlCharacters() {
        XCTAssertEqual(Shipped.pipeline.tokenize("🍎りんご🍎\u{1}\u{7F}").map(\.surface), ["りんご"])
        XCTAssertEqual(Shipped.pipeline.tokenize("👨‍👩‍👧 ねぎ\u{FE0F}").map(\.surface), ["ねぎ"])
    }

    func testVeryLongName() {
        let raw = String(repeating: "にんじんとたまねぎ", count: 11_112)  // 100,008 characters
        let tokens = Shipped.pipeline.tokenize(raw)
        XCTAssertGreaterThan(tokens.count, 20_000)
        XCTAssertEqual(tokens.last?.range.upperBound, raw.unicodeScalars.count)
    }

    func testLongRunsWithoutLexiconWords() {
        let raw = String(repeating: "ヴ", count: 5_000) + String(repeating: "x", count: 5_000) + String(repeating: "𠮷", count: 3_000)
        let tokens = Shipped.pipeline.tokenize(raw)
        XCTAssertFalse(tokens.isEmpty)
        XCTAssertEqual(tokens.last?.range.upperBound, raw.unicodeScalars.count)
    }

    /// Bytes that are not UTF-8 decode to U+FFFD, which is no word: names and keywords get the tokens of the
    /// valid text, with the same rows, and their ranges lie inside the decoded text.
    func testReplacementCharacterFromBadUTF8() {
        // にんじん, a stray 0xFF, then か cut after two of its three bytes.
        let bytes = Array("にんじん".utf8) + [0xFF, 0xE3, 0x81]
        let text = String(decoding: bytes, as: UTF8.self)
        XCTAssertEqual(text, "にんじん\u{FFFD}\u{FFFD}")
        let clean = Shipped.pipeline.tokenize("にんじん")
        XCTAssertEqual(clean.map(\.surface), ["にんじん"])
        let tokens = Shipped.pipeline.tokenize(text)
        XCTAssertEqual(tokens.map(\.surface), clean.map(\.surface))
        XCTAssertEqual(tokens.map(\.row), clean.map(\.row))
        XCTAssertNotNil(tokens.first?.row)
        XCTAssertTrue(tokens.allSatisfy { $0.range.upperBound <= text.unicodeScalars.count })
        let keyword = Shipped.pipeline.tokenizeKeyword(text)
        let cleanKeyword = Shipped.pipeline.tokenizeKeyword("にんじん")
        XCTAssertEqual(keyword.map(\.surface), cleanKeyword.map(\.surface))
        XCTAssertEqual(keyword.map(\.row), cleanKeyword.map(\.row))
    }
}
