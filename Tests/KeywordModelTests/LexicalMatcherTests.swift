import XCTest
import KeywordModel

final class LexicalMatcherTests: XCTestCase {
    func feature(_ list: [(keyword: Int, values: [Float])], _ k: Int, _ f: LexicalFeature) -> Float {
        list.first { $0.keyword == k }?.values[f.rawValue] ?? 0
    }

    func testFoldingMakesKatakanaHiraganaAndFullWidthAgree() {
        XCTAssertEqual(LexicalText.fold("ニンジン"), LexicalText.fold("にんじん"))
        XCTAssertEqual(LexicalText.fold("ＡＢＣ ラ・フランス"), LexicalText.fold("abcらふらんす"))
    }

    func testLongestTextMatchIsMaximalAndShorterIsNot() {
        let keywords = [LexicalText(text: "玉ねぎ", rows: [5]), LexicalText(text: "新玉ねぎ", rows: [6, 5]),
                        LexicalText(text: "にんじん", rows: [7])]
        let matcher = LexicalMatcher(keywords: keywords)
        let found = matcher.features(of: LexicalText(text: "淡路島産 新玉ねぎ 3玉", rows: [1, 6, 5, 2]))
        XCTAssertEqual(feature(found, 0, .text), 1)
        XCTAssertEqual(feature(found, 1, .text), 1)
        XCTAssertEqual(feature(found, 1, .maximal), 1)
        XCTAssertEqual(feature(found, 0, .maximal), 0, "玉ねぎ sits inside 新玉ねぎ")
        XCTAssertEqual(feature(found, 1, .rows), 1)
        XCTAssertEqual(feature(found, 2, .overlap), 0)
    }

    func testRowsMatchSpellingVariantsAndVarietiesMapThroughRows() {
        // にんじん's row is 7; the name writes 人参 (row 7 too) and a variety maps メークイン to じゃがいも via rows.
        let keywords = [LexicalText(text: "にんじん", rows: [7]), LexicalText(text: "じゃがいも", rows: [9])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "メークイン", rows: [9]),
                                      target: LexicalText(text: "ジャガ芋", rows: [9]))]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        let found = matcher.features(of: LexicalText(text: "人参とメークインのセット", rows: [7, 3, 9, 4]))
        XCTAssertEqual(feature(found, 0, .rows), 1)
        XCTAssertEqual(feature(found, 0, .text), 0)
        XCTAssertEqual(feature(found, 1, .variety), 1)
        XCTAssertEqual(feature(found, 1, .overlap), 1)
    }

    /// A brand row's weight is the value its match gives the variety feature; a name that matches the same
    /// keyword through an ordinary row and a brand row keeps the larger, and a variety inside the brand still counts.
    func testBrandRowsGiveTheVarietyFeatureTheirWeight() {
        let keywords = [LexicalText(text: "飲むヨーグルト", rows: [3, 5]), LexicalText(text: "いちご", rows: [7])]
        let varieties = [
            VarietyEntry(variety: LexicalText(text: "ブルガリアのむヨーグルト", rows: [1, 2, 5]),
                         target: LexicalText(text: "飲むヨーグルト", rows: [3, 5]), weight: 2.5),
            VarietyEntry(variety: LexicalText(text: "のむヨーグルト", rows: [2, 5]),
                         target: LexicalText(text: "飲むヨーグルト", rows: [3, 5])),
            VarietyEntry(variety: LexicalText(text: "とちおとめ", rows: [8]), target: LexicalText(text: "いちご", rows: [7])),
        ]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        let brand = matcher.features(of: LexicalText(text: "明治ブルガリアのむヨーグルト いちご", rows: [0, 1, 2, 5, 7]))
        XCTAssertEqual(feature(brand, 0, .variety), 2.5)
        XCTAssertEqual(feature(brand, 1, .variety), 0)
        let plain = matcher.features(of: LexicalText(text: "のむヨーグルト とちおとめ", rows: [2, 5, 8]))
        XCTAssertEqual(feature(plain, 0, .variety), 1)
        XCTAssertEqual(feature(plain, 1, .variety), 1)
    }

    /// Where each keyword is written, in folded offsets: its first and last place and its last whole-token text
    /// match; a match inside a token is not whole; a variety maps its own span; a reused scratch forgets the name
    /// before.
    func testWrittenSpans() {
        let keywords = [LexicalText(text: "ごま", rows: [1]), LexicalText(text: "うどん", rows: [3]),
                        LexicalText(text: "ます", rows: [5]), LexicalText(text: "じゃがいも", rows: [9])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "メークイン", rows: [8]),
                                      target: LexicalText(text: "じゃがいも", rows: [9]))]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        var scratch = LexicalScratch(keywordCount: keywords.count)
        // ごま / 担々 / うどん / 濃厚 / ごま: 0–2, 2–4, 4–7, 7–9, 9–11.
        matcher.match(LexicalText(tokens: ["ごま", "担々", "うどん", "濃厚", "ごま"], rows: [1, 2, 3, 4, 1]), into: &scratch)
        XCTAssertEqual(scratch.written(0), WrittenSpan(end: 2, lastEnd: 11, wholeTokenEnd: 11, start: 0))
        XCTAssertEqual(scratch.written(1), WrittenSpan(end: 7, wholeTokenEnd: 7, start: 4))
        XCTAssertEqual(scratch.written(2), .none)
        matcher.match(LexicalText(tokens: ["シャイン", "マスカット", "メークイン"], rows: [6, 7, 8]), into: &scratch)
        XCTAssertEqual(scratch.written(0), .none, "the name before is forgotten")
        XCTAssertEqual(scratch.written(2), WrittenSpan(end: 6, wholeTokenEnd: -1, start: 4), "ます inside マスカット")
        XCTAssertEqual(scratch.written(3), WrittenSpan(end: 14, wholeTokenEnd: -1, wholeSpellingEnd: 14, start: 9),
                       "written by its variety, as whole tokens")
        XCTAssertEqual(scratch.written(2).spelledWithin, -1, "ます inside マスカット, which is no variety")
        let spelled = LexicalMatcher(keywords: [LexicalText(text: "そば", rows: [1]), LexicalText(text: "焼きそば", rows: [2])],
                                     varieties: [VarietyEntry(variety: LexicalText(text: "ヤキソバ", rows: [3]),
                                                              target: LexicalText(text: "焼きそば", rows: [2]))])
        var noodles = LexicalScratch(keywordCount: 2)
        spelled.match(LexicalText(tokens: ["ヤキ", "ソバ"], rows: [4, 1]), into: &noodles)
        XCTAssertEqual(noodles.written(0).spelledWithin, 1, "そば inside ヤキソバ, which spells 焼きそば")
        XCTAssertEqual(noodles.written(1).wholeSpellingEnd, 4)
        // 塩さけ's dictionary form is 塩鮭: the keyword 塩鮭 is written there, as a spelling.
        let salted = LexicalMatcher(keywords: [LexicalText(text: "塩鮭", rows: [5]), LexicalText(text: "味噌汁", rows: [5])])
        var salmon = LexicalScratch(keywordCount: 2)
        let name = LexicalText(tokens: ["塩さけ", "切り身"], rows: [5, 6], forms: ["塩鮭", ""])
        XCTAssertEqual(name.spellings, [LexicalText.Spelling(start: 0, end: 3, folded: LexicalText.fold("塩鮭")),
                                        LexicalText.Spelling(start: 0, end: 6, folded: LexicalText.fold("塩鮭切り身"))],
                       "the token's form, then the run it starts")
        salted.match(name, into: &salmon)
        XCTAssertEqual(salmon.written(0), WrittenSpan(end: 3, wholeTokenEnd: -1, wholeSpellingEnd: 3, start: 0))
        XCTAssertEqual(salmon.featureValues(of: 0)[LexicalFeature.variety.rawValue], 1)
        XCTAssertEqual(salmon.written(1), .none, "味噌汁 shares the row only")
        XCTAssertEqual(LexicalText(tokens: ["塩鮭"], rows: [5], forms: ["塩鮭"]).spellings, [], "spelled as its form")
        matcher.match(LexicalText(tokens: ["メークインズ"], rows: [8]), into: &scratch)
        XCTAssertEqual(scratch.written(3), WrittenSpan(end: 5, wholeTokenEnd: -1, start: 0), "a variety inside a token")
    }

    /// A run of tokens within one phrase whose forms spell a variety name writes the variety's keyword
    /// (ゆず胡椒: 柚子 + 胡椒); across a phrase end it does not; a keyword whose own text or variety the surface spells
    /// gets nothing more from the form.
    func testRunsOfFormsSpellVarieties() {
        let keywords = [LexicalText(text: "柚子こしょう", rows: [1]), LexicalText(text: "こしょう", rows: [2]),
                        LexicalText(text: "しいたけ", rows: [3])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "柚子胡椒", rows: [1]), target: keywords[0]),
                         VarietyEntry(variety: LexicalText(text: "椎茸", rows: [3]), target: keywords[2])]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        var scratch = LexicalScratch(keywordCount: keywords.count)
        var paste = LexicalText(tokens: ["ゆず", "胡椒"], rows: [4, 5], forms: ["柚子", ""])
        paste.phraseEnds = LexicalText.foldMarkingPhrases("ゆず胡椒").phraseEnds
        XCTAssertEqual(paste.spellings.map(\.end), [2, 4])
        matcher.match(paste, into: &scratch)
        XCTAssertEqual(scratch.written(0).wholeSpellingEnd, 4, "柚子胡椒 is a variety of 柚子こしょう")
        XCTAssertGreaterThan(scratch.featureValues(of: 0)[LexicalFeature.variety.rawValue], 0)
        var apart = LexicalText(tokens: ["ゆず", "胡椒"], rows: [4, 5], forms: ["柚子", ""])
        apart.phraseEnds = LexicalText.foldMarkingPhrases("ゆず 胡椒").phraseEnds
        matcher.match(apart, into: &scratch)
        XCTAssertEqual(scratch.written(0), .none, "a phrase ends between the two")
        var mushroom = LexicalText(tokens: ["しいたけ"], rows: [3], forms: ["椎茸"])
        mushroom.phraseEnds = LexicalText.foldMarkingPhrases("しいたけ").phraseEnds
        matcher.match(mushroom, into: &scratch)
        XCTAssertEqual(Array(scratch.featureValues(of: 2))[LexicalFeature.variety.rawValue], 0,
                       "its text is written there already")
    }

    /// A variety name inside the keyword's own text (the receipt cut ミックスベジ in ミックスベジタブル) adds no variety
    /// evidence; on its own it does, and inside another keyword's text it still does.
    /// Runs join at most `LexicalText.longestRun` tokens, each starting at a token spelled otherwise; a phrase end
    /// counts only strictly inside a span, and a text without phrase ends has none.
    func testRunsAreShortAndPhraseEndsAreInside() {
        let name = LexicalText(tokens: ["あ", "い", "う", "え"], rows: [1, 2, 3, 4], forms: ["亜", "", "", ""])
        XCTAssertEqual(name.spellings.map(\.end), [1, 2, 3], "the token, then runs of two and three")
        XCTAssertEqual(LexicalText.longestRun, 3)
        XCTAssertFalse(name.hasPhraseEnd(within: 0, 4), "no phrase ends known")
        var spaced = LexicalText(tokens: ["あい", "うえ"], rows: [1, 2])
        spaced.phraseEnds = LexicalText.foldMarkingPhrases("あい うえ").phraseEnds
        XCTAssertTrue(spaced.hasPhraseEnd(within: 0, 4))
        XCTAssertFalse(spaced.hasPhraseEnd(within: 0, 2), "it ends there, not inside")
        XCTAssertFalse(spaced.hasPhraseEnd(within: 2, 4))
        XCTAssertFalse(spaced.hasPhraseEnd(within: 1, 2))
    }

    func testAVarietyInsideItsKeywordsTextAddsNothing() {
        let keywords = [LexicalText(text: "ミックスベジタブル", rows: [1]), LexicalText(text: "ミックスベジ丼", rows: [2])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "ミックスベジ", rows: [3]), target: keywords[0])]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        let full = matcher.features(of: LexicalText(tokens: ["ミックス", "ベジタブル"], rows: [4, 5]))
        XCTAssertEqual(feature(full, 0, .text), 1)
        XCTAssertEqual(feature(full, 0, .variety), 0, "inside its own text")
        let cut = matcher.features(of: LexicalText(tokens: ["ミックス", "ベジ"], rows: [4, 6]))
        XCTAssertGreaterThan(feature(cut, 0, .variety), 0, "the cut on its own")
        let other = matcher.features(of: LexicalText(tokens: ["ミックス", "ベジ", "丼"], rows: [4, 6, 7]))
        XCTAssertGreaterThan(feature(other, 0, .variety), 0, "inside another keyword's text")
    }

    func testKeywordWithParticleNoMatchesWithoutIt() {
        // さばの水煮缶 is stated in 「さば水煮缶」 without の, and then outranks the shorter さば as a maximal match.
        let keywords = [LexicalText(text: "さばの水煮缶", rows: [4, 0, 5]), LexicalText(text: "さば", rows: [4]),
                        LexicalText(text: "たけのこ水煮", rows: [8, 5]), LexicalText(text: "たけのこの水煮", rows: [8, 0, 5])]
        let matcher = LexicalMatcher(keywords: keywords)
        let found = matcher.features(of: LexicalText(text: "さば水煮缶 190g", rows: [4, 5]))
        XCTAssertEqual(feature(found, 0, .text), 1)
        XCTAssertEqual(feature(found, 0, .maximal), 1)
        XCTAssertEqual(feature(found, 1, .maximal), 0, "さば lies inside さば水煮缶")
        // たけのこの水煮 without its second の is the keyword たけのこ水煮: that spelling stays たけのこ水煮's alone.
        let bamboo = matcher.features(of: LexicalText(text: "たけのこ水煮", rows: [8, 5]))
        XCTAssertEqual(feature(bamboo, 2, .text), 1)
        XCTAssertEqual(feature(bamboo, 3, .text), 0)
        XCTAssertEqual(LexicalMatcher.withoutParticle(LexicalText.fold("きのこ")), [])
    }

    func testAlternativeRowsMatchAWordTheNameKeepsWhole() {
        // The keyword しめさば tokenizes as しめ / さば (content row 4 only); as one lexicon word it has row 9, the row
        // of 締め鯖, which a name keeps whole. An alternative equal to another keyword's rows is not added.
        var shime = LexicalText(text: "しめさば", rows: [4])
        shime.alternativeRows = [[9]]
        var other = LexicalText(text: "あじ", rows: [6])
        other.alternativeRows = [[4]]
        let matcher = LexicalMatcher(keywords: [shime, LexicalText(text: "さば", rows: [4]), other])
        let found = matcher.features(of: LexicalText(text: "締め鯖 2枚入", rows: [9]))
        XCTAssertGreaterThan(feature(found, 0, .rows), 0)
        XCTAssertEqual(feature(found, 1, .rows), 0)
        let mackerel = matcher.features(of: LexicalText(text: "さば", rows: [4]))
        XCTAssertEqual(feature(mackerel, 2, .rows), 0, "[4] is さば's own row sequence")
    }

    func testPartialRowOverlap() {
        let keywords = [LexicalText(text: "豚バラ肉", rows: [10, 11, 12])]
        let found = LexicalMatcher(keywords: keywords).features(of: LexicalText(text: "豚バラ", rows: [10, 11]))
        XCTAssertEqual(feature(found, 0, .overlap), 2.0 / 3.0, accuracy: 1e-6)
        XCTAssertEqual(feature(found, 0, .rows), 0)
    }

    func testScratchIsClearedBetweenNames() {
        let keywords = [LexicalText(text: "えび", rows: [1]), LexicalText(text: "かに", rows: [2])]
        let matcher = LexicalMatcher(keywords: keywords)
        var scratch = LexicalScratch(keywordCount: 2)
        matcher.match(LexicalText(text: "えび", rows: [1]), into: &scratch)
        XCTAssertEqual(scratch.touched, [0])
        matcher.match(LexicalText(text: "かに", rows: [2]), into: &scratch)
        XCTAssertEqual(scratch.touched, [1])
        XCTAssertEqual(Array(scratch.featureValues(of: 0)), [Float](repeating: 0, count: LexicalFeature.count))
    }
}

final class LexicalEvidenceTests: XCTestCase {
    func value(_ list: [(keyword: Int, values: [Float])], _ k: Int, _ f: LexicalFeature) -> Float {
        list.first { $0.keyword == k }?.values[f.rawValue] ?? 0
    }

    func testRowMatchesOnSharedRowsAreWeakerEvidence() {
        // Three keywords pruned onto one shared row (42), one with a row of its own (7).
        let keywords = [LexicalText(text: "くわい", rows: [42]), LexicalText(text: "ささげ", rows: [42]),
                        LexicalText(text: "ずいき", rows: [42]), LexicalText(text: "にんじん", rows: [7])]
        let found = LexicalMatcher(keywords: keywords).features(of: LexicalText(text: "京芋 にんじん", rows: [42, 7]))
        XCTAssertEqual(value(found, 0, .rows), 1.0 / 3.0, accuracy: 1e-6)
        XCTAssertEqual(value(found, 3, .rows), 1)
    }

    func testBigramShareSeparatesKeywordsWithTheSameVector() {
        let keywords = [LexicalText(text: "甘えび", rows: [5]), LexicalText(text: "桜えび", rows: [5]),
                        LexicalText(text: "金目鯛", rows: [6])]
        let found = LexicalMatcher(keywords: keywords).features(of: LexicalText(text: "甘海老と金目", rows: [5, 9]))
        XCTAssertEqual(value(found, 0, .bigrams), 0, "甘海老 shares no bigram with 甘えび")
        XCTAssertEqual(value(found, 2, .bigrams), 0.5, accuracy: 1e-6, "金目 is one of 金目鯛's two bigrams")
        let shrimp = LexicalMatcher(keywords: keywords).features(of: LexicalText(text: "あまえび", rows: [5]))
        XCTAssertEqual(value(shrimp, 0, .bigrams), 0.5, accuracy: 1e-6, "えび is one of 甘えび's two bigrams (甘え, えび)")
        XCTAssertEqual(value(shrimp, 1, .bigrams), 0.5, accuracy: 1e-6)
    }
}

final class SharedRowEvidenceTests: XCTestCase {
    func testRowOnlyMatchesOnSharedRowsAreFlaggedUnlessTheTextMatches() {
        let keywords = [LexicalText(text: "あいなめ", rows: [18]), LexicalText(text: "いさき", rows: [18]),
                        LexicalText(text: "むつ", rows: [16])]
        let found = LexicalMatcher(keywords: keywords).features(of: LexicalText(text: "あいなめ 1尾", rows: [18]))
        let shared = { (k: Int) in found.first { $0.keyword == k }?.values[LexicalFeature.sharedRowsOnly.rawValue] ?? 0 }
        XCTAssertEqual(shared(0), 0, "あいなめ is also matched by its text")
        XCTAssertEqual(shared(1), 0.5, accuracy: 1e-6, "いさき matches only through the row it shares with あいなめ")
        XCTAssertEqual(shared(2), 0)
    }
}

final class TokenBoundaryEvidenceTests: XCTestCase {
    func value(_ list: [(keyword: Int, values: [Float])], _ k: Int, _ f: LexicalFeature) -> Float {
        list.first { $0.keyword == k }?.values[f.rawValue] ?? 0
    }

    func testTokensGiveBoundariesAtTheirFoldedEdges() {
        // ・ folds to nothing, so its token adds no offset; spaces between segments are not tokens.
        let text = LexicalText(tokens: ["山形県", "ラ", "・", "フランス"], rows: [1, 2, 3])
        XCTAssertEqual(text.folded, LexicalText.fold("山形県らふらんす"))
        XCTAssertEqual((0...text.folded.count).filter(text.isBoundary), [0, 3, 4, 8])
        let plain = LexicalText(text: "山形県らふらんす", rows: [1, 2, 3])
        XCTAssertTrue(plain.boundaries.isEmpty)
        XCTAssertTrue((0...plain.folded.count).allSatisfy(plain.isBoundary), "unknown tokens: every offset counts")
        XCTAssertTrue(LexicalText(folded: [1, 2], rows: [], boundaries: [true]).boundaries.isEmpty,
                      "boundaries of the wrong length are dropped")
    }

    func testShortKanaKeywordInsideALongerWordDoesNotEndOnAToken() {
        let keywords = [LexicalText(text: "ます", rows: [12]), LexicalText(text: "ぶどう", rows: [30])]
        let matcher = LexicalMatcher(keywords: keywords)
        let grape = matcher.features(of: LexicalText(tokens: ["山形県", "産", "シャイン", "マスカット"], rows: [1, 2, 3, 4]))
        XCTAssertEqual(value(grape, 0, .text), 1, "the folded text ます still occurs in しゃいんますかっと")
        XCTAssertEqual(value(grape, 0, .textWholeTokens), 0, "ます ends inside マスカット")
        XCTAssertEqual(value(grape, 0, .textEndsToken), 0)
        let fish = matcher.features(of: LexicalText(tokens: ["国産", "ます", "切り身"], rows: [5, 12, 6]))
        XCTAssertEqual(value(fish, 0, .text), 1)
        XCTAssertEqual(value(fish, 0, .textWholeTokens), 1)
        XCTAssertEqual(value(fish, 0, .textEndsToken), 1)
    }

    func testMatchAtTheEndOfACompoundEndsOnATokenButDoesNotStartOne() {
        let keywords = [LexicalText(text: "ジン", rows: [40]), LexicalText(text: "にんじん", rows: [7]),
                        LexicalText(text: "鮭", rows: [8])]
        let matcher = LexicalMatcher(keywords: keywords)
        let found = matcher.features(of: LexicalText(tokens: ["北海道産", "にんじん", "生", "秋鮭"], rows: [9, 7, 10, 11]))
        XCTAssertEqual(value(found, 0, .textWholeTokens), 0, "じん starts inside にんじん")
        XCTAssertEqual(value(found, 0, .textEndsToken), 1)
        XCTAssertEqual(value(found, 0, .maximal), 0, "and にんじん covers it")
        XCTAssertEqual(value(found, 1, .textWholeTokens), 1)
        XCTAssertEqual(value(found, 1, .textEndsToken), 1)
        XCTAssertEqual(value(found, 2, .textWholeTokens), 0, "鮭 is the head of the compound 秋鮭")
        XCTAssertEqual(value(found, 2, .textEndsToken), 1)
    }

    func testWithoutTokensBothBoundaryFeaturesFollowTheTextMatch() {
        let matcher = LexicalMatcher(keywords: [LexicalText(text: "ます", rows: [12])])
        let found = matcher.features(of: LexicalText(text: "シャインマスカット", rows: [3, 4]))
        XCTAssertEqual(value(found, 0, .text), 1)
        XCTAssertEqual(value(found, 0, .textWholeTokens), 1)
        XCTAssertEqual(value(found, 0, .textEndsToken), 1)
    }

    func testVarietyMapsToTheKeywordSpelledLikeItsTargetNotToRowMates() {
        // chiVe merged 枝豆, とんぶり and 落花生 onto one row (11); だだちゃ豆 stands for 枝豆 only.
        let keywords = [LexicalText(text: "枝豆", rows: [11]), LexicalText(text: "とんぶり", rows: [11]),
                        LexicalText(text: "落花生", rows: [11])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "だだちゃ豆", rows: [4]),
                                      target: LexicalText(text: "枝豆", rows: [11]))]
        let found = LexicalMatcher(keywords: keywords, varieties: varieties)
            .features(of: LexicalText(tokens: ["山形県", "産", "だだちゃ豆"], rows: [2, 3, 4]))
        XCTAssertEqual(value(found, 0, .variety), 1)
        XCTAssertEqual(value(found, 1, .variety), 0)
        XCTAssertEqual(value(found, 2, .variety), 0)
    }

    func testKeywordInsideAVarietyOfAnotherKeywordIsFlagged() {
        // なると金時 is a sweet potato; the fish-cake keyword なると is spelled inside it, as a whole token too.
        let keywords = [LexicalText(text: "なると", rows: [5]), LexicalText(text: "さつまいも", rows: [6]),
                        LexicalText(text: "金時豆", rows: [7])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "なると金時", rows: [5, 8]),
                                      target: LexicalText(text: "さつまいも", rows: [6]))]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        let found = matcher.features(of: LexicalText(tokens: ["徳島県産", "なると", "金時", "5kg"], rows: [1, 5, 8]))
        XCTAssertEqual(value(found, 0, .text), 1)
        XCTAssertEqual(value(found, 0, .textWholeTokens), 1)
        XCTAssertEqual(value(found, 0, .textInsideVariety), 1)
        XCTAssertEqual(value(found, 1, .variety), 1)
        XCTAssertEqual(value(found, 1, .textInsideVariety), 0, "no text match of さつまいも at all")
        // The keyword alone, or once more outside the variety, is not flagged.
        let alone = matcher.features(of: LexicalText(tokens: ["焼き", "なると"], rows: [2, 5]))
        XCTAssertEqual(value(alone, 0, .textInsideVariety), 0)
        let twice = matcher.features(of: LexicalText(tokens: ["なると", "金時", "と", "なると"], rows: [5, 8, 3, 5]))
        XCTAssertEqual(value(twice, 0, .text), 1)
        XCTAssertEqual(value(twice, 0, .textInsideVariety), 0, "one なると stands outside the variety name")
    }

    func testKeywordInsideItsOwnVarietyIsNotFlagged() {
        // アンデスメロン maps to メロン: メロン inside it is the right keyword, not a trap.
        let keywords = [LexicalText(text: "メロン", rows: [5]), LexicalText(text: "赤肉メロン", rows: [6, 5])]
        let varieties = [VarietyEntry(variety: LexicalText(text: "アンデスメロン", rows: [9, 5]),
                                      target: LexicalText(text: "メロン", rows: [5]))]
        let matcher = LexicalMatcher(keywords: keywords, varieties: varieties)
        let found = matcher.features(of: LexicalText(tokens: ["茨城県産", "アンデス", "メロン"], rows: [1, 9, 5]))
        XCTAssertEqual(value(found, 0, .variety), 1)
        XCTAssertEqual(value(found, 0, .text), 1)
        XCTAssertEqual(value(found, 0, .textInsideVariety), 0)
        // Scratch reuse: the flag of one name does not leak into the next.
        var scratch = LexicalScratch(keywordCount: keywords.count)
        let other = LexicalMatcher(keywords: keywords, varieties: [
            VarietyEntry(variety: LexicalText(text: "メロンパン風", rows: [4]), target: LexicalText(text: "赤肉メロン", rows: [6, 5]))])
        other.match(LexicalText(text: "メロンパン風", rows: [4]), into: &scratch)
        XCTAssertEqual(scratch.featureValues(of: 0)[scratch.featureValues(of: 0).startIndex
            + LexicalFeature.textInsideVariety.rawValue], 1)
        other.match(LexicalText(text: "メロン", rows: [5]), into: &scratch)
        XCTAssertEqual(scratch.featureValues(of: 0)[scratch.featureValues(of: 0).startIndex
            + LexicalFeature.textInsideVariety.rawValue], 0)
    }
}
