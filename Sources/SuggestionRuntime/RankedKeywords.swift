// Ranking for serving: the best keywords for a name with the features the confidence calibrator reads and where
// each is written in the name.
import KeywordIndex
import KeywordModel
import ModelStorage

/// One ranked keyword: its score, its confidence features (`ConfidenceFeatures.vector`) and where it is written.
public struct RankedKeyword: Sendable {
    public var keyword: ScoredKeyword
    public var features: [Double]
    public var written: WrittenSpan

    public init(keyword: ScoredKeyword, features: [Double], written: WrittenSpan) {
        self.keyword = keyword
        self.features = features
        self.written = written
    }
}

extension ConfidenceFeatures {
    /// The best `k` keywords for `name` with each one's confidence features (one extra keyword is scored for
    /// the last margin). Empty when the name has no content tokens.
    /// - Complexity: as `KeywordIndex.search`.
    public static func ranked(_ index: KeywordIndex, name: LexicalText, k: Int) -> [RankedKeyword] {
        guard !name.rows.isEmpty, k > 0 else { return [] }
        let found = index.searchWithEvidence(name, k: k + 1)
        let scores = found.map(\.keyword.score)
        return found.prefix(k).enumerated().map { rank, item in
            RankedKeyword(keyword: item.keyword, features: vector(scores: scores, rank: rank, evidence: item.evidence),
                          written: item.written)
        }
    }

    /// Positions in `vector`; a test checks that they name the text and variety features.
    static let textFeature = names.firstIndex(of: "text") ?? names.count
    static let varietyFeature = names.firstIndex(of: "variety") ?? names.count

    /// Whether a ranked keyword is written in the name, from its `vector`: its text, or a variety or brand
    /// name that maps to it, occurs there.
    public static func isWritten(_ features: [Double]) -> Bool {
        features.count > max(textFeature, varietyFeature) && (features[textFeature] > 0 || features[varietyFeature] > 0)
    }
}
