import KeywordModel
import XCTest

/// The kind of product is the head of a Japanese name's noun phrase and comes last in it: a text match that ends
/// a phrase (before a space or separator, or at the name's end) is the kind, one followed by more of its phrase
/// describes it (a flavour, an ingredient, a use).
final class PhraseHeadTests: XCTestCase {
    private func value(_ list: [(keyword: Int, values: [Float])], _ k: Int, _ f: LexicalFeature) -> Float {
        list.first { $0.keyword == k }?.values[f.rawValue] ?? 0
    }

    func testPhraseEndsAreWhereFoldingDropsASeparatorAndAtTheEnd() {
        let (folded, ends) = LexicalText.foldMarkingPhrases("ごま香る 冷やし・うどん")
        XCTAssertEqual(folded, LexicalText.fold("ごま香る 冷やし・うどん"))
        XCTAssertEqual(ends.count, folded.count + 1)
        XCTAssertEqual(ends.indices.filter { ends[$0] }, [4, 7, 10])
        XCTAssertEqual(LexicalText.foldMarkingPhrases(" いちご ").phraseEnds, [false, false, false, true],
                       "a leading space ends no phrase; a trailing one ends the last")
        XCTAssertEqual(LexicalText.foldMarkingPhrases("").phraseEnds, [true])
    }

    func testAFlavourBeforeTheKindDoesNotEndItsPhrase() {
        let keywords = [LexicalText(text: "いちご", rows: [1]), LexicalText(text: "牛乳", rows: [2]),
                        LexicalText(text: "うどん", rows: [3]), LexicalText(text: "ごま", rows: [4])]
        let matcher = LexicalMatcher(keywords: keywords)
        let milk = matcher.features(of: LexicalText(text: "いちご牛乳 500", rows: [1, 2]))
        XCTAssertEqual(value(milk, 0, .text), 1)
        XCTAssertEqual(value(milk, 0, .textEndsPhrase), 0, "いちご describes the milk")
        XCTAssertEqual(value(milk, 1, .textEndsPhrase), 1)
        let noodles = matcher.features(of: LexicalText(text: "ごま香る 冷やし担々うどん", rows: [4, 5, 6, 7, 3]))
        XCTAssertEqual(value(noodles, 3, .text), 1)
        XCTAssertEqual(value(noodles, 3, .textEndsPhrase), 0, "ごま香る: the sesame is a scent")
        XCTAssertEqual(value(noodles, 2, .textEndsPhrase), 1)
        let flavour = matcher.features(of: LexicalText(text: "うどん いちご味", rows: [3, 1, 8]))
        XCTAssertEqual(value(flavour, 0, .textEndsPhrase), 0, "いちご味 is a flavour")
        XCTAssertEqual(value(flavour, 2, .textEndsPhrase), 1)
    }

    func testAnyMatchEndingAPhraseCountsAndUnknownPhrasesCountAsEnds() {
        let matcher = LexicalMatcher(keywords: [LexicalText(text: "いちご", rows: [1])])
        let twice = matcher.features(of: LexicalText(text: "いちごジャム いちご", rows: [1, 9, 1]))
        XCTAssertEqual(value(twice, 0, .textEndsPhrase), 1, "the second いちご ends the name")
        let unknown = matcher.features(of: LexicalText(folded: LexicalText.fold("いちご味"), rows: [1, 8]))
        XCTAssertEqual(value(unknown, 0, .textEndsPhrase), 1, "without phrase ends every offset counts")
        let tokens = LexicalText(tokens: ["いちご", "牛乳"], rows: [1, 2])
        XCTAssertTrue(tokens.phraseEnds.isEmpty, "token surfaces alone do not say where the phrases end")
    }
}
