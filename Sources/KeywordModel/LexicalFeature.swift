// Exact-match features: what the lexical matcher measures for each keyword, and the names checkpoints store.

/// The exact-match features the scorer weighs next to the learned cosine. All are in [0, 1] except `variety`
/// through a brand row, which is the model's brand evidence scale.
public enum LexicalFeature: Int, CaseIterable, Sendable {
    /// The keyword's token rows occur contiguously in the name's rows (so 人参 / にんじん / ニンジン match),
    /// divided by the number of keywords in the list with the same row sequence (chiVe maps many rare words
    /// onto one shared row, and a match on such a row says little about which of them is meant).
    case rows
    /// The keyword's folded text occurs in the name's folded text.
    case text
    /// Matched (rows or text) and not strictly inside a longer matched keyword (新玉ねぎ beats 玉ねぎ).
    case maximal
    /// A variety or brand name from the varieties table occurs in the name and maps to this keyword: 1, or the
    /// model's brand evidence scale (≥ 1) when the name is a brand or product line.
    case variety
    /// Share of the keyword's distinct rows that occur anywhere in the name.
    case overlap
    /// For a text match, min(keyword length, 6) / 6: longer matches are stronger evidence.
    case length
    /// Share of the keyword's distinct character bigrams (folded) that occur in the name: a soft spelling
    /// match that separates keywords whose vectors coincide (甘えび vs 甘海老, 金目鯛 vs 金目).
    case bigrams
    /// Matched by rows only, not by text, on a row sequence other keywords share: 1 − 1/(keywords sharing it).
    /// The name names one of several words chiVe merged, and the text says it is not this one (ムツ vs あいなめ).
    case sharedRowsOnly
    /// A text match starts and ends on token boundaries of the name, i.e. covers whole tokens (always, when the
    /// name's tokens are unknown): ます in 「国産 ます 切り身」 does, ます in 「シャインマスカット」 (…/マスカット) does not.
    case textWholeTokens
    /// A text match ends where a token of the name ends. Japanese compounds end in their head, so a match at
    /// the end of a token (鮭 in 秋鮭) is good evidence even when it starts inside it; one at the start is not.
    case textEndsToken
    /// Every text match of the keyword lies strictly inside a variety name found in the name that maps to other
    /// keywords only: なると in 「なると金時」 (→ さつまいも), のり in 「恋みのり」 (→ いちご), ぶどう in 「ぶどう酒」 (→ ワイン).
    /// A variety that maps to the keyword itself (メロン in 「アンデスメロン」) does not count.
    case textInsideVariety
    /// A text match ends where a phrase of the name ends (a space or separator follows, or the name ends). The
    /// kind of product is the head of a Japanese name's noun phrase and comes last in it; a match followed in the
    /// same phrase by more words describes the kind: いちご in 「いちごミルク」 or 「いちご味」, カレー in 「カレーうどん」,
    /// ごま in 「ごま香る 冷やし担々うどん」.
    case textEndsPhrase

    public static let count = allCases.count

    /// The name written into `encoder.json` for this feature's weight. Checkpoints map weights by these names,
    /// so inserting, removing or reordering a feature never shifts an old checkpoint's weights. Never rename one.
    public var name: String {
        switch self {
        case .rows: return "rows"
        case .text: return "text"
        case .maximal: return "maximal"
        case .variety: return "variety"
        case .overlap: return "overlap"
        case .length: return "length"
        case .bigrams: return "bigrams"
        case .sharedRowsOnly: return "sharedRowsOnly"
        case .textWholeTokens: return "textWholeTokens"
        case .textEndsToken: return "textEndsToken"
        case .textInsideVariety: return "textInsideVariety"
        case .textEndsPhrase: return "textEndsPhrase"
        }
    }

    /// The feature order of checkpoints written before feature names were stored (they hold weights by
    /// position, in this order). Frozen: it describes existing files, not the current feature list.
    public static let legacyOrder = [
        "rows", "text", "maximal", "variety", "overlap", "length", "bigrams", "sharedRowsOnly", "textWholeTokens",
        "textEndsToken", "textInsideVariety",
    ]

    /// The feature a checkpoint names, if this build knows it.
    public init?(name: String) {
        guard let feature = LexicalFeature.allCases.first(where: { $0.name == name }) else { return nil }
        self = feature
    }
}
