// The head of a product name: the kind of product comes last in a Japanese name (before the pack size), and the
// words in front of it describe it.
import KeywordModel

/// Whether the first ranked keyword can be the kind of product the name describes, read from where the ranked
/// keywords are written. In 「ごま担々麺」, 「国産 ブルーベリー ジャム」 or 「純りんご酢」 the flavour or ingredient
/// written first (ごま, ブルーベリー, りんご) is not the product: a keyword written after it (麺, ジャム, りんご酢) is the
/// head. Auto-accept needs the head; the ranking itself is left to the model.
public enum NameHead {
    /// How many of the best keywords are read for a later-written one, whatever `k` a caller asks for.
    public static let depth = 5

    /// Words that, right after a keyword, make it describe the product instead of naming it: a use
    /// (刺身用, 鍋向け, 煮物に), a flavour (いちご味, 和風, ごま風味, 柚子仕立て) or an ingredient (ナッツ入り, 国産麦使用).
    static let describing: [[UInt32]] = ["用", "向け", "に", "味", "風味", "風", "入り", "仕立て", "使用"].map(LexicalText.fold)

    /// True when the first of `ranked` (the best `depth` of them are read) is not itself followed by a describing word (`describing`: いちご in
    /// 「ヨーグルト いちご味」) and no other of `ranked` is written as whole tokens of `name` ending after where the
    /// first is written, other than as a description. A first keyword written nowhere (matched by its vector
    /// alone) is the head only when no other ranked keyword is written as whole tokens at all.
    public static func firstIsHead(_ ranked: [RankedKeyword], name: LexicalText) -> Bool {
        guard let first = ranked.first else { return false }
        let end = first.written.end
        if end >= 0, isDescribing(name, at: end) { return false }
        for other in ranked.prefix(depth).dropFirst() {
            let later = other.written.wholeTokenEnd
            if later > end, !isDescribing(name, at: later) { return false }
        }
        return true
    }

    /// Whether a describing word (`describing`) starts at folded offset `offset` of `name` and ends a token there.
    static func isDescribing(_ name: LexicalText, at offset: Int) -> Bool {
        let text = name.folded
        return describing.contains { word in
            let end = offset + word.count
            return end <= text.count && text[offset..<end].elementsEqual(word) && name.isBoundary(end)
        }
    }
}
