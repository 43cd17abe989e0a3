import Foundation
import KeywordIndex
import KeywordModel
import ModelStorage
@testable import SuggestionRuntime
@testable import Training
import TrainingData
import XCTest

/// The head of a name: the first keyword is left to a person when a keyword written after it is the product kind,
/// or when it is itself followed by a describing word.
final class NameHeadTests: XCTestCase {
    /// A name whose tokens are `tokens` (their folded spellings are the text; rows unknown).
    func name(_ tokens: [String]) -> LexicalText {
        LexicalText(tokens: tokens, rows: RowSequence(tokens.map { _ in Int32(-1) }))
    }

    /// A name written `text` whose tokens are `tokens` (their concatenation is `text` without its spaces), with
    /// both its token boundaries and its phrase ends.
    func name(_ text: String, _ tokens: [String]) -> LexicalText {
        var lexical = name(tokens)
        lexical.phraseEnds = LexicalText.foldMarkingPhrases(text).phraseEnds
        return lexical
    }

    /// An engine on the shipped model directory (its overlay not applied), with the directory's components.
    func shippedEngine() throws -> (ModelEngine, LoadedModel) {
        let directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("models/default").path
        let components = try ModelDirectory.load(path: directory)
        let engine = try ModelEngine(components: components,
                                     overlayPath: NSTemporaryDirectory() + "name-head-\(UUID().uuidString).json",
                                     applyOverlay: false)
        return (engine, components)
    }

    func order(_ ranked: [RankedKeyword], _ name: LexicalText) -> [Int] {
        NameHead.ordered(ranked, name: name).map(\.keyword.index)
    }

    func ranked(_ spans: [(end: Int, whole: Int)]) -> [RankedKeyword] {
        spans.enumerated().map { i, span in
            RankedKeyword(keyword: ScoredKeyword(index: i, score: Float(10 - i)), features: [],
                          written: WrittenSpan(end: span.end, wholeTokenEnd: span.whole))
        }
    }

    /// `ranked(spans)` with the category roles `roles`, in order.
    func roled(_ spans: [(end: Int, whole: Int)], _ roles: [KeywordRoles.Role]) -> [RankedKeyword] {
        zip(ranked(spans), roles).map { item, role in
            var item = item
            item.role = role
            return item
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
        let tuna = name("まぐろ刺身用", ["まぐろ", "刺身", "用"])
        XCTAssertTrue(NameHead.firstIsHead(ranked([(3, 3), (5, 5)]), name: tuna))
        // ヨーグルト / いちご / 味: いちご, written last, is a flavour; a describing word in another phrase is not.
        XCTAssertTrue(NameHead.firstIsHead(ranked([(3, 3)]), name: name("玉ねぎ 風", ["玉ねぎ", "風"])))
        let yogurt = name("ヨーグルト いちご味", ["ヨーグルト", "いちご", "味"])
        XCTAssertFalse(NameHead.firstIsHead(ranked([(8, 8), (5, 5)]), name: yogurt))
        XCTAssertTrue(NameHead.firstIsHead(ranked([(5, 5), (8, 8)]), name: yogurt))
        // A describing word must end a token: に of にんじん is not the particle.
        XCTAssertTrue(NameHead.firstIsHead(ranked([(4, 4), (6, 6)]), name: name("キャベツ煮物に", ["キャベツ", "煮物", "に"])))
        XCTAssertFalse(NameHead.firstIsHead(ranked([(4, 4), (6, 6)]), name: name("キャベツ煮物にんじん", ["キャベツ", "煮物", "にんじん"])))
        // A flavour written twice is read where it stands first: うどん follows its first place.
        let twice = name("ごま担々うどん 濃厚ごま", ["ごま", "担々", "うどん", "濃厚", "ごま"])
        let sesame = [RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [],
                                    written: WrittenSpan(end: 2, lastEnd: 11, wholeTokenEnd: 11)),
                      RankedKeyword(keyword: ScoredKeyword(index: 1, score: 1), features: [],
                                    written: WrittenSpan(end: 7, wholeTokenEnd: 7))]
        XCTAssertFalse(NameHead.firstIsHead(sesame, name: twice))
        XCTAssertEqual(order(sesame, twice), [1, 0])
        // Tokens unknown: nothing is read.
        var unknown = LexicalText(text: "ごま担々うどん", rows: [1, 2, 3])
        unknown.boundaries = []
        XCTAssertTrue(NameHead.firstIsHead(ranked([(2, 2), (7, 7)]), name: unknown))
        XCTAssertEqual(order(ranked([(2, 2), (7, 7)]), unknown), [0, 1])
    }

    /// A kind that a variety or brand writes in another place of the name (ｶｯﾌﾟﾒﾝ in 「ｶｯﾌﾟﾒﾝ ｼｮｳﾕ」) puts the first
    /// in doubt wherever it stands; the same place (the first written by that spelling itself) does not.
    func testAKindSpelledElsewhereIsNotTheHead() {
        let text = name("かっぷめん しょうゆ", ["かっぷめん", "しょうゆ"])
        func pair(_ second: WrittenSpan) -> [RankedKeyword] {
            [RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [], written: WrittenSpan(end: 9, wholeTokenEnd: 9)),
             RankedKeyword(keyword: ScoredKeyword(index: 1, score: 1), features: [], written: second)]
        }
        XCTAssertFalse(NameHead.firstIsHead(pair(WrittenSpan(end: 5, wholeTokenEnd: -1, wholeSpellingEnd: 5)), name: text))
        XCTAssertTrue(NameHead.firstIsHead(pair(WrittenSpan(end: 9, wholeTokenEnd: -1, wholeSpellingEnd: 9)), name: text))
        XCTAssertTrue(NameHead.firstIsHead(pair(WrittenSpan(end: 5, wholeTokenEnd: -1)), name: text), "not whole tokens")
    }

    func testAnUnwrittenFirstKeywordYieldsToAnyWrittenOne() {
        let text = name("ランチパック ピーナッツ", ["ランチパック", "ピーナッツ"])
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

    /// Within one phrase the keyword written last goes first; one written in a later phrase, or described, or
    /// inside a token, changes no order.
    func testTheKindWrittenLastInThePhraseGoesFirst() {
        let noodles = name("ごま担々うどん", ["ごま", "担々", "うどん"])
        XCTAssertEqual(order(ranked([(2, 2), (7, 7)]), noodles), [1, 0])
        XCTAssertEqual(order(ranked([(2, 2), (4, 4), (7, 7)]), noodles), [2, 0, 1], "the furthest one")
        XCTAssertEqual(order(ranked([(7, 7), (2, 2)]), noodles), [0, 1])
        XCTAssertEqual(order(ranked([(2, 2), (7, -1)]), noodles), [0, 1], "not whole tokens")
        let miso = name("麦みそ 国産大豆", ["麦みそ", "国産", "大豆"])
        XCTAssertEqual(order(ranked([(3, 3), (7, 7)]), miso), [0, 1], "another phrase")
        XCTAssertFalse(NameHead.firstIsHead(ranked([(3, 3), (7, 7)]), name: miso), "but it puts the first in doubt")
        XCTAssertEqual(order(ranked([(3, 3), (5, 5)]), name("まぐろ刺身用", ["まぐろ", "刺身", "用"])), [0, 1], "a use")
        XCTAssertEqual(order(ranked([(-1, -1), (3, 3), (7, 7)]), miso), [2, 0, 1], "a first keyword written nowhere")
        XCTAssertEqual(order(ranked(Array(repeating: (2, 2), count: NameHead.depth) + [(7, 7)]), noodles),
                       Array(0...NameHead.depth), "only the best are read")
    }

    /// A variety or brand name written as whole tokens writes its keyword for the serving order (ｺｰﾋｰｷﾞｭｳﾆｭｳ spells
    /// コーヒー牛乳 after コーヒー), not after a first keyword written nowhere; for the head check it puts the first in
    /// doubt.
    func testASpellingWritesItsKeywordForTheOrder() {
        let milk = name("こーひーぎゅうにゅう", ["こーひーぎゅうにゅう"])
        func spelled(_ first: WrittenSpan) -> [RankedKeyword] {
            [RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [], written: first),
             RankedKeyword(keyword: ScoredKeyword(index: 1, score: 1), features: [],
                           written: WrittenSpan(end: 10, wholeTokenEnd: -1, wholeSpellingEnd: 10))]
        }
        XCTAssertEqual(order(spelled(WrittenSpan(end: 4, wholeTokenEnd: -1)), milk), [1, 0])
        XCTAssertFalse(NameHead.firstIsHead(spelled(WrittenSpan(end: 4, wholeTokenEnd: -1)), name: milk))
        XCTAssertTrue(NameHead.firstIsHead(NameHead.ordered(spelled(WrittenSpan(end: 4, wholeTokenEnd: -1)), name: milk),
                                           name: milk), "served first, コーヒー牛乳 is the head")
        XCTAssertEqual(order(spelled(.none), milk), [0, 1], "a first keyword written nowhere")
        // とんかつ / 用 / 黒豚: a described first keyword yields to one its brand or variety writes.
        let pork = name("とんかつ用 黒豚", ["とんかつ", "用", "黒豚"])
        let described = [RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [],
                                       written: WrittenSpan(end: 4, wholeTokenEnd: 4)),
                         RankedKeyword(keyword: ScoredKeyword(index: 1, score: 1), features: [],
                                       written: WrittenSpan(end: 7, wholeTokenEnd: -1, wholeSpellingEnd: 7))]
        XCTAssertEqual(order(described, pork), [1, 0])
        // ヤキソバ spells 焼きそば; そば is written only inside it.
        let noodles = name("やきそば", ["やき", "そば"])
        var piece = WrittenSpan(end: 4, wholeTokenEnd: 4)
        piece.spelledWithin = 1
        let spelledNoodles = [RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [], written: piece),
                              RankedKeyword(keyword: ScoredKeyword(index: 1, score: 1), features: [],
                                            written: WrittenSpan(end: 4, wholeTokenEnd: -1, wholeSpellingEnd: 4))]
        XCTAssertEqual(order(spelledNoodles, noodles), [1, 0])
        piece.spelledWithin = -1
        XCTAssertEqual(order([RankedKeyword(keyword: ScoredKeyword(index: 0, score: 2), features: [], written: piece),
                              spelledNoodles[1]], noodles), [0, 1], "そば written on its own")
    }

    /// A first keyword followed by a describing word yields to the best-ranked other one written as whole tokens
    /// and not described, in any phrase.
    func testADescribedFirstKeywordYields() {
        // 豚ロース / とんかつ / 用: とんかつ (first) is a use.
        let pork = name("豚ロース とんかつ用", ["豚ロース", "とんかつ", "用"])
        XCTAssertEqual(order(ranked([(8, 8), (-1, -1), (4, 4)]), pork), [2, 0, 1])
        XCTAssertEqual(order(ranked([(8, 8), (4, -1)]), pork), [0, 1], "not whole tokens")
        // グラノーラ / いちご / 味 and いちご / 味 / ヨーグルト / 味: the other one described too.
        XCTAssertEqual(order(ranked([(8, 8), (5, 5)]), name("グラノーラ いちご味", ["グラノーラ", "いちご", "味"])), [1, 0])
        XCTAssertEqual(order(ranked([(2, 2), (10, 10)]), name("ごま香る 冷やしうどん", ["ごま", "香る", "冷やし", "うどん"])), [1, 0])
        XCTAssertEqual(order(ranked([(3, 3), (9, 9)]), name("いちご味 ヨーグルト味", ["いちご", "味", "ヨーグルト", "味"])), [0, 1])
    }

    /// A flavour first written in a later phrase than a kind of product yields to that kind (コンソメ to ポテトチップス
    /// in 「ぽてち こんそめ」); in one phrase, with the roles the other way round, with a described kind or without
    /// roles, the order stays; served first, the kind is not the head, since the flavour is written after it.
    func testAKindBeforeAFlavourInALaterPhraseGoesFirst() {
        let chips = name("ぽてち こんそめ", ["ぽてち", "こんそめ"])
        XCTAssertEqual(order(roled([(7, 7), (3, 3)], [.flavour, .kind]), chips), [1, 0])
        XCTAssertFalse(NameHead.firstIsHead(NameHead.ordered(roled([(7, 7), (3, 3)], [.flavour, .kind]), name: chips),
                                            name: chips), "the flavour is written after the kind")
        XCTAssertEqual(order(roled([(7, 7), (3, 3)], [.kind, .flavour]), chips), [0, 1], "roles the other way round")
        XCTAssertEqual(order(roled([(7, 7), (3, 3)], [.flavour, .other]), chips), [0, 1], "no kind")
        XCTAssertEqual(order(roled([(7, 7), (3, -1)], [.flavour, .kind]), chips), [0, 1], "not whole tokens")
        XCTAssertEqual(order(ranked([(7, 7), (3, 3)]), chips), [0, 1], "no roles")
        var started = roled([(7, 7), (3, 3)], [.flavour, .kind])
        started[0].written.start = 3
        XCTAssertEqual(order(started, chips), [1, 0], "the flavour starts after the phrase end")
        started[0].written.start = 0
        XCTAssertEqual(order(started, chips), [0, 1], "the flavour is written over both words")
        let oneWord = name("ぽてちこんそめ", ["ぽてち", "こんそめ"])
        XCTAssertEqual(order(roled([(7, 7), (3, 3)], [.flavour, .kind]), oneWord), [0, 1], "one phrase")
        let described = name("じゃむ用 いちご", ["じゃむ", "用", "いちご"])
        XCTAssertEqual(order(roled([(7, 7), (3, 3)], [.flavour, .kind]), described), [0, 1], "a described kind")
    }

    /// Categories map to roles; a keyword without a category, or with another one, plays none.
    func testKeywordRolesComeFromCategories() {
        let roles = KeywordRoles(categories: ["いちご": "果物", "コンソメ": "調味料", "ジャム": "加工食品", "にんじん": "野菜"])
        XCTAssertEqual(roles.role(of: "いちご"), .flavour)
        XCTAssertEqual(roles.role(of: "コンソメ"), .flavour)
        XCTAssertEqual(roles.role(of: "ジャム"), .kind)
        XCTAssertEqual(roles.role(of: "にんじん"), .other)
        XCTAssertEqual(roles.role(of: "チーム専用"), .other)
        XCTAssertEqual(KeywordRoles.none.role(of: "いちご"), .other)
    }

    /// With the shipped model, a packaged product's kind written before its flavour is served first.
    func testTheShippedModelServesTheKindBeforeAFlavour() throws {
        let (engine, _) = try shippedEngine()
        XCTAssertEqual(engine.roles.role(of: "ポテトチップス"), .kind)
        for k in [1, 5] {
            XCTAssertEqual(engine.suggest("ﾎﾟﾃﾁ ｺﾝｿﾒ", k: k, explain: false).suggestions.first?.keyword, "ポテトチップス", "k \(k)")
        }
        XCTAssertFalse(engine.suggest("ﾎﾟﾃﾁ ｺﾝｿﾒ", k: 5, explain: false).autoAccept)
        // The evaluator reads the model's roles as serving does; without them the flavour stays first.
        let data = [LabelledName(name: "ﾎﾟﾃﾁ ｺﾝｿﾒ", keywords: ["ポテトチップス"])]
        let analyzer = engine.components.analyzer
        XCTAssertEqual(Evaluator.ranks(data, index: engine.index, analyzer: analyzer, roles: engine.roles), [1])
        XCTAssertEqual(Evaluator.ranks(data, index: engine.index, analyzer: analyzer, roles: .none), [2])
    }

    /// With the shipped model: a confident flavour in front of the kind is not auto-accepted, at any k; the kind
    /// with a place in front of it is.
    func testTheShippedModelAutoAcceptsOnlyHeads() throws {
        let (engine, _) = try shippedEngine()
        let threshold = try XCTUnwrap(engine.autoAcceptThreshold)
        for k in [1, 5] {
            let noodles = engine.suggest("ごま 担々うどん", k: k, explain: false)
            XCTAssertEqual(noodles.suggestions.first?.keyword, "ごま")
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(noodles.suggestions.first?.confidence), threshold)
            XCTAssertFalse(noodles.autoAccept, "k \(k): うどん is written after it")
            let drinks = engine.suggest("コカ・コーラ アクエリアス", k: k, explain: false)
            XCTAssertEqual(drinks.suggestions.first?.keyword, "コーラ")
            XCTAssertGreaterThanOrEqual(try XCTUnwrap(drinks.suggestions.first?.confidence), threshold)
            XCTAssertFalse(drinks.autoAccept, "k \(k): アクエリアス spells another kind")
            let onion = engine.suggest("淡路島産 玉ねぎ 5kg", k: k, explain: false)
            XCTAssertEqual(onion.suggestions.first?.keyword, "玉ねぎ")
            XCTAssertTrue(onion.autoAccept, "k \(k)")
        }
    }

    /// With the shipped model, the served order and the evaluator agree: 「純りんご酢」 gets りんご酢 first at every k,
    /// and its rank is 1 for the evaluator too; the confidence keeps describing the model's own order.
    func testTheServedOrderIsWhatIsEvaluated() throws {
        let (engine, components) = try shippedEngine()
        let name = "国産りんご100% 純りんご酢 無添加 500ml×2本"
        let model = engine.index.search(components.analyzer.analyzeName(name).lexical, k: 2).map { engine.index.entries[$0.index].keyword }
        XCTAssertEqual(model, ["りんご", "りんご酢"], "the model's own order")
        for k in [1, 5] {
            XCTAssertEqual(engine.suggest(name, k: k, explain: false).suggestions.first?.keyword, "りんご酢", "k \(k)")
        }
        let data = [LabelledName(name: name, keywords: ["りんご酢"]), LabelledName(name: name, keywords: ["りんご"])]
        XCTAssertEqual(Evaluator.ranks(data, index: engine.index, analyzer: components.analyzer, roles: engine.roles), [1, 2])
    }

    /// With the shipped model, a receipt spelling serves the keyword it spells before a keyword written inside it:
    /// ﾌﾞﾀｺﾏ spells 豚こま切れ肉 around たこ, which the model puts first.
    func testTheShippedModelServesWhatASpellingWrites() throws {
        let (engine, components) = try shippedEngine()
        let name = "ﾌﾞﾀｺﾏｷﾞﾚ"
        let top = engine.index.search(components.analyzer.analyzeName(name).lexical, k: 1)
        XCTAssertEqual(top.map { engine.index.entries[$0.index].keyword }, ["たこ"], "the model's own first")
        for k in [1, 5] {
            XCTAssertEqual(engine.suggest(name, k: k, explain: false).suggestions.first?.keyword, "豚こま切れ肉", "k \(k)")
        }
        // 塩さけ shares its vector row with 味噌汁; its dictionary form 塩鮭 writes the keyword.
        XCTAssertEqual(engine.suggest("塩さけ 100g", k: 5, explain: false).suggestions.first?.keyword, "塩鮭")
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
