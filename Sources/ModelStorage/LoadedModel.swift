// A loaded model directory, and how it turns a keyword list into a keyword index.
import KeywordIndex
import KeywordModel

/// Everything read from a model directory, ready to build keyword indexes.
public struct LoadedModel: Sendable {
    public var directory: String
    public var analyzer: any TextAnalyzer
    public var vectors: InputVectors
    /// The trained encoder; nil for a directory without one (only the "untrained" ablation can run then).
    public var weights: ModelWeights?
    /// The model's own keyword list (keywords.txt).
    public var keywords: [String]
    /// Variety / brand name → keyword.
    public var varieties: [(variety: String, keyword: String)]
    /// The source column of each `varieties` row (empty when unknown); rows of source `brand` are brand names and
    /// product lines.
    public var varietySources: [String]
    public var manifest: ModelManifest?
    /// The confidence calibrator fitted for `weights` (calibration.json); nil when the directory has none.
    public var calibration: ModelCalibration?
    /// Keyword → category (keyword-categories.tsv); empty when the directory has none.
    public var categories: [String: String]

    public init(directory: String, analyzer: any TextAnalyzer, vectors: InputVectors, weights: ModelWeights?,
                keywords: [String], varieties: [(variety: String, keyword: String)], varietySources: [String] = [],
                manifest: ModelManifest?, calibration: ModelCalibration? = nil, categories: [String: String] = [:]) {
        self.directory = directory
        self.analyzer = analyzer
        self.vectors = vectors
        self.weights = weights
        self.keywords = keywords
        self.varieties = varieties
        self.varietySources = varietySources
        self.manifest = manifest
        self.calibration = calibration
        self.categories = categories
    }

    public var modelVersion: String { manifest?.modelVersion ?? "unversioned" }

    /// The inference model: the trained encoder, or the identity on word vectors when `untrained`.
    public func inferenceModel(untrained: Bool) throws -> InferenceModel {
        if untrained { return InferenceModel(identity: vectors.dimension) }
        guard let weights else {
            throw ModelDirectoryError(path: directory, message: "no trained encoder (encoder.json / encoder.bin)")
        }
        guard weights.config.inputDimension == vectors.dimension else {
            throw ModelDirectoryError(path: directory, message: "encoder expects \(weights.config.inputDimension)-d vectors, vectors.kwv has \(vectors.dimension)")
        }
        return InferenceModel(weights)
    }

    /// Keyword entries for `keywords`, analysed with the keyword-side pipeline. Keywords `previous` already
    /// holds are taken from it, so adding one keyword to a large list analyses one keyword, not the list.
    public func entries(_ keywords: [String], reusing previous: KeywordIndex? = nil) -> [KeywordEntry] {
        var known: [String: KeywordEntry] = [:]
        if let previous {
            known.reserveCapacity(previous.entries.count)
            for entry in previous.entries { known[entry.keyword] = entry }
        }
        return keywords.map { known[$0] ?? KeywordEntry(keyword: $0, text: analyzer.analyzeKeyword($0).lexical) }
    }

    /// The value of the variety evidence for a brand or product-line row: the manifest's dev-chosen brand
    /// evidence scale, 1 for a model without one.
    public var brandEvidenceScale: Float { Float(manifest?.brandEvidenceScale ?? 1) }

    /// The varieties table prepared for matching (variety text folded; target analysed as a keyword). Brand rows
    /// give the variety feature `brandScale` (the model's own by default; training uses 1).
    public func varietyEntries(brandScale: Float? = nil) -> [VarietyEntry] {
        let brand = brandScale ?? brandEvidenceScale
        // A variety name is matched by its text alone; each target keyword is analysed once, however many
        // names it has.
        var targets: [String: LexicalText] = [:]
        return varieties.enumerated().map { i, entry in
            let isBrand = i < varietySources.count && varietySources[i] == "brand"
            let target: LexicalText
            if let known = targets[entry.keyword] {
                target = known
            } else {
                target = analyzer.analyzeKeyword(entry.keyword).lexical
                targets[entry.keyword] = target
            }
            return VarietyEntry(variety: analyzer.varietyText(entry.variety), target: target, weight: isBrand ? brand : 1)
        }
    }

    /// An index over `keywords`.
    /// - Complexity: O(K) keyword encodings (fewer when `reusing` already holds some).
    public func makeIndex(keywords: [String], options: ScoringOptions = ScoringOptions(), untrained: Bool = false,
                          varieties prepared: [VarietyEntry]? = nil, reusing previous: KeywordIndex? = nil) throws -> KeywordIndex {
        KeywordIndex(model: try inferenceModel(untrained: untrained), vectors: vectors,
                     entries: entries(keywords, reusing: previous), varieties: prepared ?? varietyEntries(),
                     options: options, reusing: previous)
    }
}
