import KeywordModel
import ModelStorage
import XCTest

final class AnalyzedTextTests: XCTestCase {
    func testLexicalFormKeepsTokenBoundariesWhenTheTokensSpellTheText() {
        let analyzed = AnalyzedText(normalized: "山形県産 シャインマスカット", surfaces: ["山形県", "産", "シャイン", "マスカット"],
                                    rows: [1, 2, 3, 4], tokenSurfaces: ["山形県", "産", "シャイン", "マスカット"])
        let lexical = analyzed.lexical
        XCTAssertEqual(lexical.folded, LexicalText.fold("山形県産しゃいんますかっと"))
        XCTAssertEqual((0...lexical.folded.count).filter(lexical.isBoundary), [0, 3, 4, 8, 13])
    }

    func testLexicalFormDropsBoundariesWhenTheTokensDoNotSpellTheText() {
        // The folded text must not change with the tokens, or an old model's text features would.
        let analyzed = AnalyzedText(normalized: "国産 ます 切り身", surfaces: ["国産", "ます"], rows: [1, 2],
                                    tokenSurfaces: ["国産", "ます"])
        var expected = LexicalText(text: "国産 ます 切り身", rows: [1, 2])
        expected.subwords = SubwordPieces(surfaces: ["国産", "ます"])
        XCTAssertEqual(analyzed.lexical, expected)
        XCTAssertTrue(analyzed.lexical.boundaries.isEmpty)
    }

    func testKeywordPiecesTakeTheKeywordsOtherTokens() {
        // Non-content tokens join the next content token, or the last one at the end.
        XCTAssertEqual(PipelineAnalyzer.pieceSurfaces([("100", false), ("ジュース", true)]), ["100ジュース"])
        XCTAssertEqual(PipelineAnalyzer.pieceSurfaces([("塩", true), ("たら", false)]), ["塩たら"])
        XCTAssertEqual(PipelineAnalyzer.pieceSurfaces([("たけのこ", true), ("の", false), ("水煮", true)]), ["たけのこ", "の水煮"])
        var analyzed = AnalyzedText(normalized: "100ジュース", surfaces: ["ジュース"], rows: [5])
        analyzed.pieceSurfaces = ["100ジュース"]
        XCTAssertEqual(analyzed.lexical.subwords, SubwordPieces(surfaces: ["100ジュース"]))
        XCTAssertNotEqual(analyzed.lexical.subwords, AnalyzedText(normalized: "ジュース", surfaces: ["ジュース"], rows: [5]).lexical.subwords)
    }
}
