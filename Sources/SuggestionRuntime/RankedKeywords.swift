// Ranking for serving: the best keywords for a name in the order they are served, with the features the
// confidence calibrator reads and where each is written in the name.
import KeywordIndex
import KeywordModel
import ModelStorage

/// One ranked keyword: its score, its confidence features (`ConfidenceFeatures.vector`), where it is written and
/// the part its category plays in a product name.
public struct RankedKeyword: Sendable {
    public var keyword: ScoredKeyword
    public var features: [Double]
    public var written: WrittenSpan
    public var role: KeywordRoles.Role

    public init(keyword: ScoredKeyword, features: [Double], written: WrittenSpan, role: KeywordRoles.Role = .other) {
        self.keyword = keyword
        self.features = features
        self.written = written
        self.role = role
    }
}

extension ConfidenceFeatures {
    /// The best `k` keywords for `name` in serving order (`NameHead.ordered` reads the best `NameHead.depth`
    /// whatever `k` is), each with its confidence features, which describe its place in the model's own order
    /// (one extra keyword is scored for the last margin). Empty when the name has no content tokens.
    /// - Complexity: as `KeywordIndex.search`.
    public static func ranked(_ index: KeywordIndex, name: LexicalText, k: Int, roles: KeywordRoles) -> [RankedKeyword] {
        guard !name.rows.isEmpty, k > 0 else { return [] }
        return served(index.searchWithEvidence(name, k: max(k, NameHead.depth) + 1), name: name, k: k,
                      roles: roles, index: index)
    }

    /// `ranked` from a search already made: `found` holds the best keywords in the model's order, at least
    /// `NameHead.depth` + 1 of them when the list has that many.
    /// `roles` are read for the keywords of `index` where `NameHead` reads them: the first keyword's, and the
    /// others' only when the first names a flavour (the rest stay `.other`).
    public static func served(_ found: [(keyword: ScoredKeyword, evidence: [Float], written: WrittenSpan)],
                              name: LexicalText, k: Int, roles: KeywordRoles, index: KeywordIndex) -> [RankedKeyword] {
        let scores = found.map(\.keyword.score)
        let depth = max(k, NameHead.depth)
        let firstRole = found.first.map { roles.role($0.keyword.index, in: index) } ?? .other
        let model = found.prefix(depth).enumerated().map { rank, item in
            let role = rank == 0 ? firstRole : firstRole == .flavour ? roles.role(item.keyword.index, in: index) : .other
            return RankedKeyword(keyword: item.keyword, features: vector(scores: scores, rank: rank, evidence: item.evidence),
                                 written: item.written, role: role)
        }
        return Array(NameHead.ordered(model, name: name).prefix(k))
    }
}
