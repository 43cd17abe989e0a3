import XCTest
@testable import KeywordText

final class NormalizerTests: XCTestCase {
    func normalized(_ text: String) -> String {
        TextPipeline.string(Normalizer.normalize(text).scalars[...])
    }

    func testWidthAndCase() {
        XCTAssertEqual(normalized("ﾆﾝｼﾞﾝ"), "ニンジン")
        XCTAssertEqual(normalized("ﾊﾟｲﾅｯﾌﾟﾙ"), "パイナップル")
        XCTAssertEqual(normalized("５００ｇ"), "500g")
        XCTAssertEqual(normalized("ＡＢＣ Kg"), "abc kg")
        XCTAssertEqual(normalized("㎏"), "kg")
        XCTAssertEqual(normalized("①"), "1")
        XCTAssertEqual(normalized("神﨑"), "神﨑")
    }

    func testLongVowelsDashesTildes() {
        XCTAssertEqual(normalized("ラ-メン"), "ラーメン")
        XCTAssertEqual(normalized("ラ－メン"), "ラーメン")
        XCTAssertEqual(normalized("コーーヒー"), "コーヒー")
        XCTAssertEqual(normalized("ﾗｰﾒﾝ"), "ラーメン")
        XCTAssertEqual(normalized("5〜6本"), "5~6本")
        XCTAssertEqual(normalized("t–bone"), "t-bone")
    }

    func testDecomposedVoicedMarksCompose() {
        XCTAssertEqual(normalized("か\u{3099}"), "が")
        XCTAssertEqual(normalized("ハ\u{309A}"), "パ")
        XCTAssertEqual(normalized("ウ\u{3099}"), "ヴ")
    }

    func testOffsetsFollowTheOriginal() {
        let text = Normalizer.normalize("ｼﾞｬｶﾞ㎏")
        XCTAssertEqual(TextPipeline.string(text.scalars[...]), "ジャガkg")
        // ｼ ﾞ ｬ ｶ ﾞ ㎏: voiced marks merge into the kana before them; ㎏ gives two scalars.
        XCTAssertEqual(text.origin, [0, 2, 3, 5, 5])
        XCTAssertEqual(text.originalCount, 6)
    }

    func testControlCharactersAndZeroWidth() {
        XCTAssertEqual(normalized("a\u{0}b\u{7}c\u{200B}d"), "a b cd")
    }
}
