// What the engine needs from the text pipeline: normalised text, token surfaces and vector rows.
import KeywordModel

/// A product name or keyword after normalisation and tokenisation.
public struct AnalyzedText: Sendable, Equatable {
    /// The normalised text (units, prices and stop phrases removed for names).
    public var normalized: String
    /// Token surfaces, in order; `rows[i]` is token i's vector row or −1.
    public var surfaces: [String]
    public var rows: [Int32]

    public init(normalized: String, surfaces: [String], rows: [Int32]) {
        self.normalized = normalized
        self.surfaces = surfaces
        self.rows = rows
    }

    /// The form the model and the exact-match features consume.
    public var lexical: LexicalText { LexicalText(text: normalized, rows: rows) }
}

/// Turns raw strings into `AnalyzedText`. Names get the full pipeline (stop phrases, units); keywords and
/// variety names only normalisation and tokenisation.
public protocol TextAnalyzer: Sendable {
    func analyzeName(_ raw: String) -> AnalyzedText
    func analyzeKeyword(_ raw: String) -> AnalyzedText
}
