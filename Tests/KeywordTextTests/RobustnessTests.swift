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

    func testReplacementCharacterFromBadUTF8() {
        let text = String(decoding: [0xE3, 0x81, 0x8B, 0xFF, 0xE3, 0x81], as: UTF8.self)
        _ = Shipped.pipeline.tokenize(text)
        _ = Shipped.pipeline.tokenizeKeyword(text)
    }
}
