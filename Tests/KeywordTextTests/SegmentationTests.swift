import XCTest
@testable import KeywordText

/// Segmentation of product names and keywords (expected splits are SudachiPy 0.6.11, mode C, core dictionary).
final class SegmentationTests: XCTestCase {
    func surfaces(_ text: String, keyword: Bool = false) -> [String] {
        (keyword ? Shipped.pipeline.tokenizeKeyword(text) : Shipped.pipeline.tokenize(text)).map(\.surface)
    }

    func testProductNames() {
        XCTAssertEqual(surfaces("淡路島産 カラーにんじん 3本"), ["淡路島", "産", "カラー", "にんじん"])
        XCTAssertEqual(surfaces("【送料無料】訳あり 北海道産 じゃがいも 5kg"), ["北海道産", "じゃがいも"])
        XCTAssertEqual(surfaces("成分無調整 牛乳 1000ml"), ["成分", "無", "調整", "牛乳"])
    }

    func testKeywords() {
        XCTAssertEqual(surfaces("豚バラ肉", keyword: true), ["豚", "バラ肉"])
        XCTAssertEqual(surfaces("鶏もも肉", keyword: true), ["鶏", "もも肉"])
        XCTAssertEqual(surfaces("新玉ねぎ", keyword: true), ["新", "玉ねぎ"])
        XCTAssertEqual(surfaces("牛乳", keyword: true), ["牛乳"])
        XCTAssertEqual(surfaces("しょうが焼き", keyword: true), ["しょうが", "焼き"])
    }

    func testUnknownKatakanaRunsAreJoinedAndGetASubwordRow() {
        let tokens = Shipped.pipeline.tokenizeKeyword("ゴールドラッシュコーンモドキ")
        XCTAssertEqual(tokens.count, 1, "\(tokens.map(\.surface))")
        XCTAssertEqual(tokens.first?.isOOV, true)
        XCTAssertNotNil(tokens.first?.row)
        XCTAssertEqual(tokens.first?.rowSource, .subword)
    }

    func testFoldedKanaFindsARow() {
        // ジャガ芋 is a chiVe key; the katakana spelling of the hiragana part is found by folding.
        let pipeline = Shipped.pipeline
        let resolution = pipeline.resolve(Array("ぽてと".unicodeScalars.map(\.value))[...])
        XCTAssertNotNil(resolution.row)
        XCTAssertEqual(resolution.source, .folded)
    }

    func testContentFlags() {
        let tokens = Shipped.pipeline.tokenizeKeyword("りんごの皮")
        XCTAssertEqual(tokens.map(\.surface), ["りんご", "の", "皮"])
        XCTAssertEqual(tokens.map(\.isContent), [true, false, true])
    }

    /// Written alone, a word the lattice reads as an auxiliary is read as the noun the lexicon also knows; a name
    /// of several words, or a function word with no noun entry, keeps the lattice's reading.
    func testANameOfFunctionWordsAloneReadsTheirNouns() {
        for name in ["たい 100g", "ます"] {
            let tokens = Shipped.pipeline.tokenize(name)
            XCTAssertEqual(tokens.map(\.isContent), [true], name)
            XCTAssertNotNil(tokens.first?.row, name)
        }
        XCTAssertEqual(Shipped.pipeline.tokenize("です").map(\.isContent), [false])
        XCTAssertFalse(Shipped.pipeline.tokenize("です ます").contains(where: \.isContent), "not one word")
        XCTAssertEqual(Shipped.pipeline.tokenize("の").map(\.isContent), [false])
    }

    func testOffsetsPointIntoTheOriginal() {
        let raw = "★ﾆﾝｼﾞﾝ　５００ｇ★ 国産"
        let original = Array(raw.unicodeScalars)
        for token in Shipped.pipeline.tokenize(raw) {
            let piece = String(String.UnicodeScalarView(original[token.range]))
            XCTAssertFalse(piece.isEmpty)
            if token.surface == "ニンジン" { XCTAssertEqual(piece, "ﾆﾝｼﾞﾝ") }
            if token.surface == "国産" { XCTAssertEqual(piece, "国産") }
        }
        XCTAssertEqual(Shipped.pipeline.tokenize(raw).map(\.surface), ["ニンジン", "国産"])
    }
}
