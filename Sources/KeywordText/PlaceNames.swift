// Names that say only where a product comes from: a place never says what the product is.

/// Place names and the words that mark an origin. A token is a place when the lexicon tags it as one
/// (Sudachi's 名詞,固有名詞,地名: 淡路島, 十勝, 魚沼) or it marks an origin: one of `originWords` (産, 産地, 国産 …), a
/// word ending in 産 (北海道産, which the lexicon holds as one word), or a place ending in 県 or 府 (長崎県). A place
/// the lexicon tags otherwise (長野 is also a surname) is not one here: the rule errs toward suggesting.
public enum PlaceNames {
    /// Sudachi's part of speech of place names, as the lexicon stores it (six comma-separated fields), in UTF-8:
    /// compared byte by byte, which costs a fraction of a Unicode-aware `hasPrefix` on every name token.
    static let placePrefix = Array("名詞,固有名詞,地名".utf8)
    /// 産, as the last scalar of a word.
    static let originSuffix: Unicode.Scalar = "産"
    /// The last scalars of a prefecture's full name.
    static let prefectureSuffixes: Set<Unicode.Scalar> = ["県", "府"]

    /// Words that say where a product comes from, or mark the place before them as its origin, and name nothing
    /// else: 「大阪産」 is 大阪 + 産, 「産地：新潟」 is 産地 + 新潟. Normalised forms (NFKC, lower case).
    static let originWords: Set<String> = [
        "産", "産地", "原産", "原産地", "国産", "国内産", "県産", "府産", "都産", "道産", "外国産", "輸入", "輸入品",
        "県", "府", "都", "市", "町", "村", "郡", "地方", "近海", "沖", "港", "直送", "産直", "育ち", "生まれ",
        "発", "地元",
    ]

    static func isPlaceName(_ token: Token) -> Bool {
        token.partOfSpeech.utf8.starts(with: placePrefix)
    }

    /// Whether `token` says that a place is where the product comes from.
    static func marksOrigin(_ token: Token) -> Bool {
        guard let last = token.surface.unicodeScalars.last else { return false }
        return last == originSuffix || (prefectureSuffixes.contains(last) && isPlaceName(token))
            || originWords.contains(token.surface) || originWords.contains(token.normalized)
    }

    /// Whether the content tokens of `tokens` say only where the product comes from: every one is a place or an
    /// origin word, and one marks the origin. A place named alone (ダージリン, ボルドー, 讃岐, 宇治) is left to the
    /// model: many such names are the product's own (tea, wine, udon), and the model's guess for the others is
    /// never sure enough to be auto-accepted.
    public static func namesOnlyPlaces(_ tokens: [Token]) -> Bool {
        var marked = false
        var any = false
        for token in tokens where token.isContent {
            // Each token is read once: an origin word, else a place name, else the name says more than where.
            let origin = marksOrigin(token)
            guard origin || isPlaceName(token) else { return false }
            any = true
            marked = marked || origin
        }
        return any && marked
    }
}
