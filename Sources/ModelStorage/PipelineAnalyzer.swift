// The TextAnalyzer over KeywordText's pipeline: lexicon, stop phrases and spelling variants → chiVe rows.
import KeywordModel
import KeywordText

/// Names go through the full pipeline (units, prices, decorations and stop phrases removed); keywords and
/// variety names only through normalisation and segmentation. Only content tokens (not symbols, numbers,
/// particles) reach the model; a content token without a vector gets row −1 (the learned OOV state).
public struct PipelineAnalyzer: TextAnalyzer {
    public let pipeline: TextPipeline
    /// Name tokens read as unknown words (row −1): brand names whose vector row belongs to an unrelated word.
    public let unknownInNames: Set<String>

    /// Rows for name tokens the lexicon does not know, and whose row is only a sub-word's guess, when their kana
    /// spelling is a reading in the varieties table (`KanaReadings`): テバサキ reads as 手羽先's word. A token the
    /// pipeline resolved to a known word (アカゴメ is the word 赤米) keeps that word's row.
    public let readings: KanaReadings

    public init(pipeline: TextPipeline, unknownInNames: Set<String> = [], readings: KanaReadings = KanaReadings()) {
        self.pipeline = pipeline
        self.unknownInNames = unknownInNames
        self.readings = readings
    }

    public func analyzeName(_ raw: String) -> AnalyzedText {
        let analysis = pipeline.analyze(raw)
        let content = analysis.tokens.filter(\.isContent)
        let unknown = unknownInNames
        let rows = content.map { token -> Int32 in
            if unknown.contains(token.surface) { return -1 }
            if token.isOOV, token.rowSource == .subword || token.rowSource == .none,
               let row = readings.row(of: token.surface) { return row }
            return Int32(token.row ?? -1)
        }
        var analyzed = AnalyzedText(normalized: analysis.normalized.text, surfaces: content.map(\.surface),
                                    rows: rows, tokenSurfaces: analysis.tokens.map(\.surface))
        analyzed.tokenForms = analysis.tokens.map { $0.isContent && $0.normalized != $0.surface ? $0.normalized : "" }
        analyzed.onlyPlaces = PlaceNames.namesOnlyPlaces(content)
        return analyzed
    }

    /// The brand names that are one token whose vector row is none of their keyword's rows. chiVe as shipped keeps
    /// 20,000 rows for 480,000 words, so most brand words share a row with an unrelated word (シーチキン gets
    /// チキン's row, and reads as chicken): in names they count as unknown, and the brand table's evidence speaks.
    /// - Complexity: O(brands) tokenizations.
    public static func unrelatedRowWords(_ pipeline: TextPipeline, brands: [(variety: String, keyword: String)]) -> Set<String> {
        var result: Set<String> = []
        for (brand, keyword) in brands {
            let tokens = pipeline.tokenizeKeyword(brand).filter(\.isContent)
            guard tokens.count == 1 else { continue }
            let targetRows = Set(pipeline.tokenizeKeyword(keyword).compactMap(\.row))
            if let row = tokens[0].row, targetRows.contains(row) { continue }
            result.insert(tokens[0].surface)
        }
        return result
    }

    public func nameKey(_ raw: String) -> String { pipeline.nameKey(raw) }
    public var nameKeyIdentity: String { pipeline.nameKeyIdentity }

    /// The keyword's normalised text without segmenting it (`TextPipeline.keywordText`): the folded text
    /// `analyzeKeyword` would give, at a fraction of the cost.
    public func varietyText(_ raw: String) -> LexicalText {
        LexicalText(text: pipeline.keywordText(raw), rows: [])
    }

    public func analyzeKeyword(_ raw: String) -> AnalyzedText {
        let tokens = pipeline.tokenizeKeyword(raw)
        let content = tokens.filter(\.isContent)
        let used = content.isEmpty ? tokens : content
        let rows = used.map { Int32($0.row ?? -1) }
        let normalized = tokens.map(\.surface).joined()
        // A keyword the lattice splits but the lexicon knows as one word (しめさば → しめ / さば; one word 締め鯖)
        // also matches a name whose tokenizer keeps that word whole.
        var alternatives: [[Int32]] = []
        if tokens.count > 1, let whole = pipeline.wholeWordRow(normalized), [Int32(whole)] != rows {
            alternatives.append([Int32(whole)])
        }
        var analyzed = AnalyzedText(normalized: normalized, surfaces: used.map(\.surface), rows: rows,
                                    alternativeRows: alternatives)
        if !content.isEmpty && content.count < tokens.count {
            analyzed.pieceSurfaces = PipelineAnalyzer.pieceSurfaces(tokens.map { ($0.surface, $0.isContent) })
        }
        return analyzed
    }

    /// The text of each content token of a keyword with the keyword's other tokens glued on: a token that is not
    /// content joins the next content token, or the last one at the end (100%ジュース → 100ジュース, 十六ささげ →
    /// 十六ささげ, 塩たら → 塩たら, たけのこの水煮 → たけのこ / の水煮). A keyword's numbers, particles and stray kana
    /// thus reach its sub-word pieces, so it never reads like the keyword of its content words alone.
    public static func pieceSurfaces(_ tokens: [(surface: String, isContent: Bool)]) -> [String] {
        var result: [String] = []
        var pending = ""
        for token in tokens {
            if token.isContent {
                result.append(pending + token.surface)
                pending = ""
            } else {
                pending += token.surface
            }
        }
        if !pending.isEmpty, !result.isEmpty { result[result.count - 1] += pending }
        return result
    }
}
