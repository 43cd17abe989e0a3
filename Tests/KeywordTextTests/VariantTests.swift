import XCTest
@testable import KeywordText

/// Spelling variants must reach the same chiVe row as their standard form.
final class VariantTests: XCTestCase {
    let groups: [[String]] = [
        ["人参", "にんじん", "ニンジン", "ﾆﾝｼﾞﾝ"],
        ["じゃが芋", "じゃがいも", "ジャガイモ"],
        ["玉葱", "たまねぎ", "玉ねぎ"],
        ["海老", "えび", "エビ"],
        ["林檎", "りんご", "リンゴ"],
        ["生姜", "しょうが", "ショウガ"],
    ]

    func testVariantsShareTheStandardRowAsKeywords() {
        let pipeline = Shipped.pipeline
        for group in groups {
            let standard = pipeline.tokenizeKeyword(group[0])
            XCTAssertEqual(standard.count, 1, "\(group[0]) should be one token: \(standard.map(\.surface))")
            guard let row = standard.first?.row else { return XCTFail("\(group[0]) has no row") }
            for variant in group.dropFirst() {
                let tokens = pipeline.tokenizeKeyword(variant)
                XCTAssertEqual(tokens.map(\.row), [row], "\(variant) → \(tokens.map { "\($0.surface)#\($0.row ?? -1)" })")
            }
        }
    }

    func testVariantsShareTheStandardRowInsideProductNames() {
        let pipeline = Shipped.pipeline
        for group in groups {
            guard let row = pipeline.tokenizeKeyword(group[0]).first?.row else { return XCTFail("no row for \(group[0])") }
            for variant in group {
                let tokens = pipeline.tokenize("【送料無料】国産 \(variant) 1kg")
                XCTAssertTrue(tokens.contains { $0.row == row }, "\(variant) in a name → \(tokens.map(\.surface))")
            }
        }
    }

    func testRowForWordUsesTheSameFallbacks() {
        let pipeline = Shipped.pipeline
        XCTAssertEqual(pipeline.row(forWord: "にんじん"), pipeline.row(forWord: "人参"))
        XCTAssertNotNil(pipeline.row(forWord: "人参"))
        XCTAssertNil(pipeline.row(forWord: ""))
        XCTAssertNil(pipeline.row(forWord: "\u{E000}"))
    }

    func testNormalisedFormOfAVariantIsSudachis() {
        let tokens = Shipped.pipeline.tokenizeKeyword("にんじん")
        XCTAssertEqual(tokens.first?.normalized, "人参")
        XCTAssertEqual(tokens.first?.rowSource, .lexicon)
        XCTAssertEqual(tokens.first?.isOOV, false)
    }
}
