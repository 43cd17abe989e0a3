// How the index turns encoder states and exact-match evidence into one score per keyword.

/// Scoring switches; the defaults are the full model.
public struct ScoringOptions: Sendable, Equatable {
    /// The article's attention over name words; off = uniform weights ("no-attention" ablation).
    public var attention = true
    /// Add the learned exact-match evidence (see `LexicalFeature`) to the cosine.
    public var evidence = true
    /// CSLS-style hubness correction: subtract `hubness ×` each keyword's mean cosine to its
    /// `hubNeighbours` nearest keywords. 0 = off.
    public var hubness: Float = 0
    public var hubNeighbours = 10
    /// Multiplies the learned evidence weights (1 = as trained).
    public var evidenceScale: Float = 1
    /// Names longer than this many tokens are truncated (keeps scratch buffers bounded).
    public var maxNameTokens = 64

    public init(attention: Bool = true, evidence: Bool = true, hubness: Float = 0) {
        self.attention = attention
        self.evidence = evidence
        self.hubness = hubness
    }
}

/// A keyword (by index in the index's list) and its score; higher is better.
public struct ScoredKeyword: Sendable, Equatable {
    public var index: Int
    public var score: Float
    public init(index: Int, score: Float) {
        self.index = index
        self.score = score
    }
}
