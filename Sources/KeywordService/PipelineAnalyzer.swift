// The TextAnalyzer over KeywordText's pipeline: lexicon, stop phrases and spelling variants → chiVe rows.
import KeywordText

/// Names go through the full pipeline (units, prices, decorations and stop phrases removed); keywords and
/// variety names only through normalisation and segmentation. Only content tokens (not symbols, numbers,
/// particles) reach the model; a content token without a vector gets row −1 (the learned OOV state).
public struct PipelineAnalyzer: TextAnalyzer {
    public let pipeline: TextPipeline

    public init(pipeline: TextPipeline) {
        self.pipeline = pipeline
    }

    public func analyzeName(_ raw: String) -> AnalyzedText {
        let analysis = pipeline.analyze(raw)
        let content = analysis.tokens.filter(\.isContent)
        return AnalyzedText(normalized: analysis.normalized.text, surfaces: content.map(\.surface),
                            rows: content.map { Int32($0.row ?? -1) }, tokenSurfaces: analysis.tokens.map(\.surface))
    }

    public func analyzeKeyword(_ raw: String) -> AnalyzedText {
        let tokens = pipeline.tokenizeKeyword(raw)
        let content = tokens.filter(\.isContent)
        let used = content.isEmpty ? tokens : content
        return AnalyzedText(normalized: tokens.map(\.surface).joined(), surfaces: used.map(\.surface),
                            rows: used.map { Int32($0.row ?? -1) })
    }
}
