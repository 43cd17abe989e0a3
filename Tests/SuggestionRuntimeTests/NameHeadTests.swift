import Foundation
import KeywordIndex
import KeywordModel
import ModelStorage
@testable import SuggestionRuntime
@testable import Training
import XCTest

/// The head of a name: the first keyword is left to a person when a keyword written after it is the product kind,
/// or when it is itself followed by a describing word.
final class NameHeadTests: XCTestCase {
    /// A name whose tokens are `tokens` (their folded spellings are the text; rows unknown).
    func name(_ tokens: [String]) -> LexicalText {
        LexicalText(tokens: tokens, rows: RowSequence(tokens.map { _ in Int32(-1) }))
    }

    func ranked(_ spans: [(end: Int, whole: Int)]) -> [RankedKeyword] {
        spans.enumerated().map { i, span in
            RankedKeyword(keyword: ScoredKeyword(index: i, score: Float(10 - i)), features: [],
                          written: WrittenSpan(end: span.end, wholeTokenEnd: span.whole))
        }
    }

    func testAKeywordWrittenLaterIsTheHead() {
        // ごま / 担々 / 麺: ごま ends at 2, 麺 at 5.
        let text = name(["ごま", "担々", "麺"])
        XCTAssertFalse(NameHead.firstIsHead(ranked([(2, 2), (5, 5)]), name: text))
        XCTAssertTrue(NameHead.firstIsHead(ranked([(5, 5), (2, 2)]), name: text))
        // A later match inside a token (ぶり in はまぐり) is not a word of the name.
        XCTAssertTrue(NameHead.firstIsHead(ranked([(2, 2), (5, -1)]), name: text))
    }

    func testADescribedWordIsNotTheHead() {
        // まぐろ / 刺身 / 用: 刺身 is written later, but as a use.
        let tuna = name(["まぐろ", "刺身", "用"])
        XCTAssertTrue(NameHead.firstIsHead(ranked([(3, 3), (5, 5)]), name: tuna))
        // ヨーグルト / いちご / 味: いちご, written last, is a flavour.
        let yogurt = name(["ヨーグルト", "いちご", "味"])
        XCTAssertFalse(NameHead.firstIsHead(ranked([(8, 8), (5, 5)]), name: yogurt))
        XCTAssertTrue(NameHead.firstIsHead(ranked([(5, 5), (8, 8)]), name: yogurt))
        // A describing word must end a token: に of にんじん is not the particle.
        XCTAssertTrue(NameHead.firstIsHead(ranked([(4, 4), (6, 6)]), name: name(["キャベツ", "煮物", "に"])))
        XCTAssertFalse(NameHead.firstIsHead(ranked([(4, 4), (6, 6)]), name: name(["キャベツ", "煮物", "にんじん"])))
    }

    func testAnUnwrittenFirstKeywordYieldsToAnyWrittenOne() {
        let text = name(["ランチパック", "ピーナッツ"])
        XCTAssertFalse(NameHead.firstIsHead(ranked([(-1, -1), (11, 11)]), name: text))
        XCTAssertTrue(NameHead.firstIsHead(ranked([(-1, -1), (-1, -1)]), name: text))
        XCTAssertFalse(NameHead.firstIsHead([], name: text))
    }

    func testOnlyTheBestKeywordsAreRead() {
        let text = name(["ごま", "担々", "麺"])
        let deep = ranked(Array(repeating: (2, 2), count: NameHead.depth) + [(5, 5)])
        XCTAssertTrue(NameHead.firstIsHead(deep, name: text))
        XCTAssertFalse(NameHead.firstIsHead(Array(deep.prefix(1)) + [deep[NameHead.depth]], name: text))
    }

    /// With the shipped model: a confident flavour in front of the kind is not auto-accepted, at any k; the kind
    /// with a place in front of it is.
    func testTheShippedModelAutoAcceptsOnlyHeads() throws {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("models/default").path
        let engine = try ModelEngine(components: ModelDirectory.load(path: directory),
                                     overlayPath: NSTemporaryDirectory() + "name-head-\(UUID().uuidString).json",
                                     applyOverlay: false)
        let threshold = try XCTUnwrap(engine.autoAcceptThreshold)
        for k in [1, 5] {
            let jam = engine.suggest("国産 ブルーベリー ジャム 低糖 無添加 400g 瓶", k: k, explain: false)
            XCTAssertEqual(jam.suggestions.first?.keyword, "ブルーベリー")
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(jam.suggestions.first?.confidence), threshold)
            XCTAssertFalse(jam.autoAccept, "k \(k)")
            let onion = engine.suggest("淡路島産 玉ねぎ 5kg", k: k, explain: false)
            XCTAssertEqual(onion.suggestions.first?.keyword, "玉ねぎ")
            XCTAssertTrue(onion.autoAccept, "k \(k)")
        }
    }

    /// The gate counts what serving would auto-accept: a confident first keyword that is not the head is not.
    func testTheGateCountsOnlyHeads() {
        let tops = [CalibrationGate.TopSuggestion(confidence: 0.99, correct: true, isHead: true),
                    CalibrationGate.TopSuggestion(confidence: 0.99, correct: false, isHead: false),
                    CalibrationGate.TopSuggestion(confidence: 0.5, correct: false, isHead: true)]
        let figures = CalibrationGate.figures(tops, threshold: 0.9)
        XCTAssertEqual(figures.coverage, 1.0 / 3, accuracy: 1e-9)
        XCTAssertEqual(figures.precision, 1)
    }
}
