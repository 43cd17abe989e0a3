// Names that say only where a product comes from: a place never says what the product is.

/// Place names and the words that mark an origin. A token is a place when the lexicon tags it as one
/// (Sudachi's 名詞,固有名詞,地名: 淡路島, 十勝, 魚沼) or it is one of `originWords` (産, 産地, 国産, 県産 …). A place
/// the lexicon tags otherwise (長野 is also a surname) is not one here: the rule errs toward suggesting.
public enum PlaceNames {
    /// Sudachi's part of speech of place names, as the lexicon stores it (six comma-separated fields), in UTF-8:
    /// compared byte by byte, which costs a fraction of a Unicode-aware `hasPrefix` on every name token.
    static let placePrefix = Array("名詞,固有名詞,地名".utf8)
    /// 産, as the last scalar of a word.
    static let originSuffix: Unicode.Scalar = "産"

    /// Words that say where a product comes from, or mark the place before them as its origin, and name nothing
    /// else: 「大阪産」 is 大阪 + 産, 「産地：長野」 is 産地 + 長野. Normalised forms (NFKC, lower case).
    static let originWords: Set<String> = [
        "産", "産地", "原産", "原産地", "国産", "国内産", "県産", "府産", "都産", "道産", "外国産", "輸入", "輸入品",
        "県", "府", "都", "市", "町", "村", "郡", "地方", "近海", "沖", "港", "直送", "産直", "育ち", "生まれ",
        "発", "地元",
    ]

    /// Whether `token` names a place or marks an origin: a place name, an origin word, or one word ending in 産
    /// (北海道産, which the lexicon holds as a word of its own).
    public static func isPlace(_ token: Token) -> Bool {
        token.partOfSpeech.utf8.starts(with: placePrefix) || token.surface.unicodeScalars.last == originSuffix
            || originWords.contains(token.surface) || originWords.contains(token.normalized)
    }

    /// Whether every content token of `tokens` is a place or an origin word, and there is at least one: the
    /// name says where, and nothing of what.
    public static func namesOnlyPlaces(_ tokens: [Token]) -> Bool {
        var any = false
        for token in tokens where token.isContent {
            guard isPlace(token) else { return false }
            any = true
        }
        return any
    }
}
