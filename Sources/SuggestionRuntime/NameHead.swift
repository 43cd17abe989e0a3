// The head of a product name: the kind of product comes last in a Japanese name (before the pack size), and the
// words in front of it describe it.
import KeywordModel

/// The kind of product a name describes, read from where the best keywords are written in it.
///
/// Within one phrase (a run of the name between spaces or separators) the kind comes last: in 「ごま担々うどん」,
/// 「純りんご酢」 or 「さば味噌煮缶」 the flavour or ingredient written first (ごま, りんご, さば) describes the kind written
/// after it (うどん, りんご酢, さばの味噌煮), so that keyword is served first (`ordered`). Across phrases the order is
/// free (「麦みそ 1kg 国産大豆」, 「ガム ライムミント」), so a keyword written last in a later phrase is not served
/// first for it; it only puts the first in doubt (「国産 ブルーベリー ジャム」), and auto-accept needs a first keyword
/// that nothing written after it questions (`firstIsHead`). A describing word right after the first keyword
/// (〜用, 〜味, 〜入り) says it is not the kind wherever the kind is written: then another written keyword, in any
/// phrase, is served first. One order across phrases is read: a packaged product's kind, or its brand, written
/// before a flavour in a later phrase (「ﾎﾟﾃﾁ ｺﾝｿﾒ」, 「アヲハタ まるごと果実 いちご」), by the keywords' categories
/// (`KeywordRoles`).
///
/// All of it reads token boundaries; a name whose tokens are unknown (`LexicalText.boundaries` empty) keeps the
/// model's order and is judged on its confidence alone.
public enum NameHead {
    /// How many of the best keywords are read, whatever `k` a caller asks for.
    public static let depth = 5

    /// Words that, right after a keyword, make it describe the product instead of naming it: a use
    /// (刺身用, 鍋向け, 煮物に), a flavour (いちご味, 松茸の味, 和風, ごま風味, ごま香る, 柚子の香り, 柚子仕立て) or an
    /// ingredient (ナッツ入り, ナッツ入, 国産麦使用).
    static let describing: [[UInt32]] = [
        "用", "向け", "に", "味", "の味", "風味", "風", "香る", "薫る", "香り", "の香り", "入り", "入", "仕立て", "使用",
    ].map(LexicalText.fold)

    /// `ranked` (in the model's order) in serving order, changed in three cases, each reading the best `depth`:
    /// - a first keyword written only inside a variety or brand name of another keyword (そば in 「ヤキソバ」, たこ in
    ///   「ﾌﾞﾀｺﾏｷﾞﾚ」) yields to the keyword that name spells (焼きそば, 豚こま切れ肉), when it is among the best;
    /// - otherwise (no such name, or its keyword not among the best) a first keyword followed by a describing word
    ///   names a use, a flavour or an ingredient (とんかつ in 「豚ロース とんかつ用」, アメリカンチェリー in
    ///   「グラノーラ アメリカンチェリー味」): the best-ranked other keyword written as whole tokens of `name` and not
    ///   described itself goes first;
    /// - otherwise the keyword written last in a phrase of the first one goes first: the one written as whole
    ///   tokens ending furthest after a place where the first is written, with no phrase end between and no
    ///   describing word after it. A first keyword written nowhere (found by its vector alone) yields to the one
    ///   whose own text is written last anywhere;
    /// - otherwise a first keyword that names a flavour (`KeywordRoles.Role.flavour`) first written in a later
    ///   phrase than a kind of product (`.kind`) among the best, written as whole tokens and not described, yields
    ///   to that kind (コンソメ to ポテトチップス in 「ﾎﾟﾃﾁ ｺﾝｿﾒ」).
    ///
    /// Here a keyword is written by its own text or by a variety, brand or dictionary form of it (「ｺｰﾋｰｷﾞｭｳﾆｭｳ」
    /// spells コーヒー牛乳, which is served before コーヒー).
    public static func ordered(_ ranked: [RankedKeyword], name: LexicalText) -> [RankedKeyword] {
        guard let first = ranked.first, !name.boundaries.isEmpty else { return ranked }
        let spelled = firstOther(ranked) { $0.keyword.index == first.written.spelledWithin }
        let candidate = spelled ?? (isDescribed(first.written, name)
            ? firstOther(ranked) { other in
                let end = other.written.wholeEnd(withSpellings: true)
                return end >= 0 && !isDescribing(name, at: end)
            }
            : writtenAfterFirst(ranked, name: name, acrossPhrases: false))
        guard let head = candidate ?? kindBeforeFlavour(ranked, name: name) else { return ranked }
        var result = ranked
        result.insert(result.remove(at: head), at: 0)
        return result
    }

    /// The index of the best-ranked kind of product written as whole tokens, and not described, in a phrase
    /// before the one where a first keyword naming a flavour is first written; nil when there is none.
    static func kindBeforeFlavour(_ ranked: [RankedKeyword], name: LexicalText) -> Int? {
        guard let first = ranked.first, first.role == .flavour else { return nil }
        return firstOther(ranked) { other in
            other.role == .kind && inEarlierPhrase(other.written.wholeEnd(withSpellings: true), than: first.written, name)
        }
    }

    /// Whether a keyword written as whole tokens ending at `end` (−1: nowhere) is not described there and is
    /// written in a phrase before the one where `first` is first written: it ends before that place starts, with
    /// a phrase end between (チーズ is not before チーズケーキ in 「チーズ ケーキ」, which writes the two words as one).
    static func inEarlierPhrase(_ end: Int, than first: WrittenSpan, _ name: LexicalText) -> Bool {
        guard end >= 0, !isDescribing(name, at: end) else { return false }
        if first.start >= 0 {
            return end <= first.start && (end...first.start).contains { name.isPhraseEnd($0) }
        }
        return end < first.end && (end..<first.end).contains { name.isPhraseEnd($0) }
    }

    /// True when the first of `ranked` (the best `depth` are read) is not followed by a describing word itself
    /// (いちご in 「ヨーグルト いちご味」), no other is written by its own text as whole tokens of `name` ending after
    /// where the first is first written, in any phrase, other than as a description, and no other is spelled as
    /// whole tokens by a variety, brand or dictionary form anywhere the first is not written (`spelledElsewhere`).
    /// A first keyword written nowhere is the head only when no other ranked keyword is written as whole tokens at
    /// all. A name whose tokens are unknown says nothing either way (true).
    public static func firstIsHead(_ ranked: [RankedKeyword], name: LexicalText) -> Bool {
        guard let first = ranked.first else { return false }
        guard !name.boundaries.isEmpty else { return true }
        return !isDescribed(first.written, name) && writtenAfterFirst(ranked, name: name, acrossPhrases: true) == nil
            && spelledElsewhere(ranked, name: name) == nil
    }

    /// The index of another of the best keywords that a variety, brand or dictionary form writes as whole tokens
    /// where the first is not written (アクエリアス in 「コカ・コーラ アクエリアス」): the name names two kinds, and
    /// which is the product is not for a rule to say; nil when there is none.
    static func spelledElsewhere(_ ranked: [RankedKeyword], name: LexicalText) -> Int? {
        guard let first = ranked.first else { return nil }
        return firstOther(ranked) { other in
            let end = other.written.wholeSpellingEnd
            return end >= 0 && end != first.written.end && end != first.written.lastEnd && !isDescribing(name, at: end)
        }
    }

    /// The index of the best-ranked keyword after the first, among the best `depth`, that `matches`.
    static func firstOther(_ ranked: [RankedKeyword], where matches: (RankedKeyword) -> Bool) -> Int? {
        ranked.prefix(depth).indices.dropFirst().first { matches(ranked[$0]) }
    }

    /// Whether serving auto-accepts a first suggestion: its confidence clears the threshold and it is the head of
    /// the name. Serving and the promote gate's figures both ask this.
    public static func autoAccepts(confidence: Double?, threshold: Double?, isHead: Bool) -> Bool {
        guard let confidence, let threshold else { return false }
        return isHead && confidence >= threshold
    }

    /// Whether a describing word follows a place where the keyword is written.
    static func isDescribed(_ written: WrittenSpan, _ name: LexicalText) -> Bool {
        (written.end >= 0 && isDescribing(name, at: written.end))
            || (written.lastEnd != written.end && written.lastEnd >= 0 && isDescribing(name, at: written.lastEnd))
    }

    /// The index in `ranked` of the keyword written last after the first (see `ordered`): after where the first is
    /// first written and, unless `acrossPhrases`, in the same phrase as that place or as where it is last written;
    /// nil when there is none.
    static func writtenAfterFirst(_ ranked: [RankedKeyword], name: LexicalText, acrossPhrases: Bool) -> Int? {
        guard let first = ranked.first else { return nil }
        let firstEnd = first.written.end, lastEnd = first.written.lastEnd
        func samePhrase(_ start: Int, _ end: Int) -> Bool {
            start < 0 || !(start..<end).contains(where: { name.isPhraseEnd($0) })
        }
        // After the first place (the earlier of the two), and in its phrase or in that of the last place.
        func follows(_ end: Int) -> Bool {
            guard end > firstEnd else { return false }
            return acrossPhrases || samePhrase(firstEnd, end) || (end > lastEnd && samePhrase(lastEnd, end))
        }
        var found: Int?, furthest = Int.min
        for (i, other) in ranked.prefix(depth).enumerated().dropFirst() {
            // Serving order reads varieties and brands too (ｺｰﾋｰｷﾞｭｳﾆｭｳ spells コーヒー牛乳), except after a first
            // keyword written nowhere; the head check reads the keywords' own text.
            let end = other.written.wholeEnd(withSpellings: !acrossPhrases && firstEnd >= 0)
            guard end > furthest, follows(end), !isDescribing(name, at: end) else { continue }
            found = i
            furthest = end
        }
        return found
    }

    /// Whether a describing word (`describing`) starts at folded offset `offset` of `name`, in the same phrase as
    /// what ends there (「玉ねぎ 風」 is not 玉ねぎ described), and ends a token.
    static func isDescribing(_ name: LexicalText, at offset: Int) -> Bool {
        let text = name.folded
        guard !name.isPhraseEnd(offset) else { return false }
        return describing.contains { word in
            let end = offset + word.count
            return end <= text.count && text[offset..<end].elementsEqual(word) && name.isBoundary(end)
        }
    }
}
