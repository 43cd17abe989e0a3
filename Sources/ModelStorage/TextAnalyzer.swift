// What the engine needs from the text pipeline: normalised text, token surfaces and vector rows.
import KeywordModel

/// A product name or keyword after normalisation and tokenisation.
public struct AnalyzedText: Sendable, Equatable {
    /// The normalised text (units, prices and stop phrases removed for names).
    public var normalized: String
    /// Token surfaces, in order; `rows[i]` is token i's vector row or −1.
    public var surfaces: [String]
    public var rows: [Int32]
    /// Every token surface in order, content or not (empty when unknown): the token boundaries of the
    /// exact-match features.
    public var tokenSurfaces: [String]
    /// The dictionary form of each of `tokenSurfaces` where it is a content word spelled otherwise ("" elsewhere;
    /// empty when unknown): see `LexicalText.spellings`.
    public var tokenForms: [String] = []
    /// Other row sequences of the same word (keywords only; see `LexicalText.alternativeRows`).
    public var alternativeRows: [[Int32]]
    /// The text each of `rows` takes its sub-word pieces from, when not its surface (keywords: see
    /// `PipelineAnalyzer.pieceSurfaces`); empty for the surfaces themselves.
    public var pieceSurfaces: [String] = []
    /// Whether every content token names a place or marks an origin (`PlaceNames`): the name says where the
    /// product comes from and nothing of what it is. Always false for keywords.
    public var onlyPlaces = false

    public init(normalized: String, surfaces: [String], rows: [Int32], tokenSurfaces: [String] = [],
                alternativeRows: [[Int32]] = []) {
        self.normalized = normalized
        self.surfaces = surfaces
        self.rows = rows
        self.tokenSurfaces = tokenSurfaces
        self.alternativeRows = alternativeRows
    }

    /// The form the model and the exact-match features consume. The folded text always comes from
    /// `normalized`; the token boundaries are kept only when the tokens spell exactly that text.
    public var lexical: LexicalText {
        let pieces = pieceSurfaces.count == rows.count ? pieceSurfaces : surfaces
        let subwords = pieces.count == rows.count ? SubwordPieces(surfaces: pieces) : SubwordPieces()
        var plain = LexicalText(text: normalized, rows: rows)
        plain.alternativeRows = alternativeRows
        plain.subwords = subwords
        guard !tokenSurfaces.isEmpty else { return plain }
        var tokens = LexicalText(tokens: tokenSurfaces, rows: rows, forms: tokenForms)
        tokens.alternativeRows = alternativeRows
        tokens.subwords = subwords
        tokens.phraseEnds = plain.phraseEnds
        return tokens.folded == plain.folded ? tokens : plain
    }
}

/// Turns raw strings into `AnalyzedText`. Names get the full pipeline (stop phrases, units); keywords and
/// variety names only normalisation and tokenisation.
public protocol TextAnalyzer: Sendable {
    func analyzeName(_ raw: String) -> AnalyzedText
    func analyzeKeyword(_ raw: String) -> AnalyzedText
    /// A variety or brand name as the exact-match evidence reads it: its folded text, as `analyzeKeyword` gives
    /// it (rows are not read).
    func varietyText(_ raw: String) -> LexicalText
    /// The name key: what two listings of one product share (see `TextPipeline.nameKey`); "" for a name with no
    /// content.
    func nameKey(_ raw: String) -> String
    /// Equal for two analyzers whose name keys are equal.
    var nameKeyIdentity: String { get }
}

extension TextAnalyzer {
    /// By default the keyword analysis.
    public func varietyText(_ raw: String) -> LexicalText { analyzeKeyword(raw).lexical }

    /// By default the normalised name without white space.
    public func nameKey(_ raw: String) -> String {
        String(analyzeName(raw).normalized.unicodeScalars.filter { $0 != " " })
    }

    /// By default the analyzer's type: two instances of one type normalise names alike.
    public var nameKeyIdentity: String { String(reflecting: Self.self) }
}
