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
        XCTAssertEqual(analyzed.lexical, LexicalText(text: "国産 ます 切り身", rows: [1, 2]))
        XCTAssertTrue(analyzed.lexical.boundaries.isEmpty)
    }
}
